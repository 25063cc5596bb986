/** agent.yml keys of the front doors: `http` (shared by all), `openaiApi`, `uiStreams`, `mcpServerDoor`, `a2a`. */

import * as z from 'zod';
import { boolean, positiveInt, positiveSeconds, switchable } from './shared.ts';

/** Limits of every HTTP request, whichever door it comes through. */
export const httpSchema = z
  .strictObject({
    maxBodyBytes: positiveInt().default(64 * 1024),
    maxMessageChars: positiveInt().default(16_000),
    /** Streaming responses send a comment this often, so proxies keep an idle connection open. */
    heartbeatSeconds: positiveSeconds().default(15),
  })
  .prefault({});

/** The OpenAI-compatible front door (GET /v1/models, POST /v1/chat/completions). */
export const openaiApiSchema = z
  .strictObject({
    /** The one model /v1/models lists; a chat completion naming another gets 404 model_not_found. */
    modelId: z.string().regex(/^[^\s]{1,128}$/, 'a model id is 1 to 128 characters without spaces').default('mcp-agent'),
  })
  .prefault({});

/** The doors for UI toolkits: the AI SDK UI message stream (POST /ui/ai-sdk/chat) and AG-UI (POST /ui/ag-ui); docs/ui-streams.md. */
export const uiStreamsSchema = boolean().default(false);

/**
 * The agent as an MCP server at /mcp (docs/mcp-server-door.md): one tool that asks it a question.
 * `true` turns it on with the defaults below; an object with settings turns it on with those.
 */
export const mcpServerDoorSchema = switchable({
  /** The tool's name as MCP clients list it. */
  toolName: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'a tool name is 1 to 64 letters, digits, _ . -').default('ask'),
  /** What the calling model reads about the tool: say what this agent knows and can do. */
  toolDescription: z.string().min(1).max(4_000).default('Ask the agent a question. It answers with its tools; pass the conversationId of an earlier answer to continue that conversation.'),
  /** What the calling model reads about the `message` argument. */
  messageDescription: z.string().min(1).max(1_000).default('The question or task, in plain words.'),
  /** What the calling model reads about the `conversationId` argument. */
  conversationIdDescription: z.string().min(1).max(1_000).default('The conversationId of an earlier answer, to continue that conversation; omit it to start a new one.'),
}, 'toolName, toolDescription, messageDescription, conversationIdDescription');

/**
 * The A2A front door (docs/a2a.md): the agent card at /.well-known/agent-card.json and JSON-RPC at
 * /a2a, for other agents. Off unless turned on; `true` serves it with the defaults below.
 */
export const a2aSchema = switchable(
  {
    /** The agent's name on its card. */
    name: z.string().min(1).max(200).default('mcp-agent'),
    description: z.string().min(1).default('An agent that answers questions and carries out tasks with the tools of its MCP servers.'),
    /**
     * The public base URL clients reach the service by (a custom domain), without a trailing slash;
     * the card's JSON-RPC URL is this and `/a2a`. Absent: the URL the card was fetched by.
     */
    url: z.url().optional(),
    /** What the card says the agent can do; absent: one skill, `ask`, described by `description`. */
    skills: z
      .array(
        z.strictObject({
          id: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'a skill id uses letters, digits, _ . - (at most 64)'),
          name: z.string().min(1),
          description: z.string().min(1),
          tags: z.array(z.string().min(1)).default([]),
          examples: z.array(z.string().min(1)).default([]),
        }),
      )
      .min(1, 'list at least one skill, or leave skills out for the default one')
      .optional(),
  },
  'name, description, url, skills',
);
