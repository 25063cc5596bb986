/**
 * The offline stand-in model (`LLM_MODEL=demo`, and `npm start` without a model configured): a
 * `ModelClient` that answers from a few rules (rules.ts) by calling the demo MCP server's tools, so
 * a newcomer sees a turn work, tools and all, before configuring a real model. It streams like one
 * (a few text deltas, a short pause between them) so the event stream shows deltas too. It proves
 * nothing about models: tests of the loop use scripted models and the scripted OpenAI server.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { ModelError } from '../core/errors.ts';
import type { ModelClient, ModelReply, ModelRequest } from '../core/ports/model.ts';
import { demoReply } from './rules.ts';

interface DemoModelOptions {
  /** Between two deltas, so a watcher sees the text arrive in pieces (0 in tests). */
  pauseMs?: number;
}

/** Roughly how many deltas a reply is cut into. */
const PIECES = 6;

export function createDemoModel(options: DemoModelOptions = {}): ModelClient {
  const pauseMs = options.pauseMs ?? 40;
  return {
    async complete(request: ModelRequest): Promise<ModelReply> {
      throwIfAborted(request.signal);
      const reply = demoReply(request.messages, request.tools, () => `call_demo_${randomUUID().replaceAll('-', '').slice(0, 20)}`);
      if (request.onDelta && reply.content !== null) {
        for (const [position, piece] of pieces(reply.content).entries()) {
          if (position > 0 && pauseMs > 0) await sleep(pauseMs);
          throwIfAborted(request.signal);
          request.onDelta({ kind: 'text', text: piece });
        }
      }
      return reply;
    },
  };
}

/** The text in about PIECES parts, never splitting a character. */
function pieces(text: string): string[] {
  const characters = Array.from(text);
  const size = Math.max(1, Math.ceil(characters.length / PIECES));
  const result: string[] = [];
  for (let start = 0; start < characters.length; start += size) result.push(characters.slice(start, start + size).join(''));
  return result;
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (!signal?.aborted) return;
  const timedOut = signal.reason instanceof Error && signal.reason.name === 'TimeoutError';
  throw timedOut
    ? new ModelError('model_timeout', 'The turn ran out of time before the offline demo model answered.', { timeout: true })
    : new ModelError('model_aborted', 'The model call was cancelled before the model answered.');
}
