/**
 * The baseline: the agent loop written by hand with nothing but the `openai` package and the MCP
 * SDK, as a team would write it in an afternoon. It sends the same requests as the project (system
 * prompt, history, the question; every tool as a function, `tool_choice: auto`, the temperature),
 * runs each round's calls side by side through MCP, appends one tool message per call, and keeps
 * each conversation's messages in a Map. No validation, limits, timeouts, approvals, storage
 * format or events: what the project costs beyond this is what those cost.
 */
import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

export interface BaselineOptions {
  baseURL: string;
  apiKey: string;
  model: string;
  temperature: number;
  systemPrompt: string;
  maxRounds: number;
  /** The stdio MCP server: command and arguments. */
  server: { command: string; args: string[] };
}

export interface BaselineAgent {
  ask(conversationId: string, message: string): Promise<string>;
  close(): Promise<void>;
}

export async function createBaselineAgent(options: BaselineOptions): Promise<BaselineAgent> {
  const openai = new OpenAI({ baseURL: options.baseURL, apiKey: options.apiKey });
  const mcp = new Client({ name: 'baseline', version: '1.0.0' });
  await mcp.connect(new StdioClientTransport({ command: options.server.command, args: options.server.args, stderr: 'ignore' }));
  const { tools } = await mcp.listTools();
  const functions: ChatCompletionTool[] = tools.map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description ?? '', parameters: tool.inputSchema },
  }));
  const conversations = new Map<string, ChatCompletionMessageParam[]>();

  async function callTool(name: string, argumentText: string): Promise<string> {
    const result = await mcp.callTool({ name, arguments: JSON.parse(argumentText) as Record<string, unknown> });
    const content = result.content as { type: string; text?: string }[];
    return content.map((block) => (block.type === 'text' ? block.text : `[${block.type}]`)).join('\n');
  }

  return {
    async ask(conversationId, question) {
      const history = conversations.get(conversationId) ?? [];
      const turn: ChatCompletionMessageParam[] = [{ role: 'user', content: question }];
      let reply = '';
      for (let round = 0; round < options.maxRounds; round += 1) {
        const completion = await openai.chat.completions.create({
          model: options.model,
          messages: [{ role: 'system', content: options.systemPrompt }, ...history, ...turn],
          tools: functions,
          tool_choice: 'auto',
          temperature: options.temperature,
        });
        const message = completion.choices[0]!.message;
        const calls = (message.tool_calls ?? []).filter((call) => call.type === 'function');
        turn.push({ role: 'assistant', content: message.content, ...(calls.length > 0 ? { tool_calls: calls } : {}) });
        reply = message.content ?? '';
        if (calls.length === 0) break;
        const outputs = await Promise.all(calls.map((call) => callTool(call.function.name, call.function.arguments)));
        calls.forEach((call, index) => turn.push({ role: 'tool', tool_call_id: call.id, content: outputs[index]! }));
      }
      conversations.set(conversationId, [...history, ...turn]);
      return reply;
    },
    close: () => mcp.close(),
  };
}
