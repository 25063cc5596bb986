/**
 * The benchmark's model: an OpenAI-compatible Chat Completions endpoint on 127.0.0.1 that answers
 * at once, so a turn's time is the client's own. It is stateless: the model name carries the turn's
 * shape (`bench-5x2`: 5 rounds of 2 parallel `add` calls, then the answer), and the request's
 * messages say which round it is (the assistant messages since the last user message). Both loops
 * therefore get the same replies for the same requests, whatever process asks.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TurnShape {
  /** Rounds in which the model asks for tools; one more round answers with text. */
  toolRounds: number;
  callsPerRound: number;
}

export const shapeModelName = (shape: TurnShape) => `bench-${shape.toolRounds}x${shape.callsPerRound}`;

export function shapeOf(model: unknown): TurnShape {
  const match = /^bench-(\d+)x(\d+)$/.exec(String(model));
  if (!match) throw new Error(`the model name ${String(model)} names no shape (bench-<rounds>x<calls>)`);
  return { toolRounds: Number(match[1]), callsPerRound: Number(match[2]) };
}

interface RequestBody {
  model: unknown;
  messages: { role: string }[];
}

/** The reply to a request: the next round's calls, or the answer once the tool rounds are done. */
export function replyTo(body: RequestBody): Record<string, unknown> {
  const shape = shapeOf(body.model);
  const lastUser = body.messages.findLastIndex((message) => message.role === 'user');
  const round = body.messages.slice(lastUser + 1).filter((message) => message.role === 'assistant').length;
  const usage = { prompt_tokens: 20 * body.messages.length, completion_tokens: 10, total_tokens: 20 * body.messages.length + 10 };
  const message =
    round < shape.toolRounds
      ? {
          role: 'assistant',
          content: null,
          tool_calls: Array.from({ length: shape.callsPerRound }, (_, call) => ({
            id: `call_${round}_${call}`,
            type: 'function',
            function: { name: 'add', arguments: JSON.stringify({ a: round, b: call }) },
          })),
        }
      : { role: 'assistant', content: `Done after ${round} rounds.` };
  const finishReason = round < shape.toolRounds ? 'tool_calls' : 'stop';
  return { id: 'chatcmpl-bench', object: 'chat.completion', created: 0, model: String(body.model), choices: [{ index: 0, message, finish_reason: finishReason }], usage };
}

export interface ModelServer {
  baseURL: string;
  /** Requests answered so far. */
  requests(): number;
  close(): Promise<void>;
}

export async function startModelServer(): Promise<ModelServer> {
  let requests = 0;
  const server: Server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      requests += 1;
      try {
        const reply = JSON.stringify(replyTo(JSON.parse(Buffer.concat(chunks).toString('utf8')) as RequestBody));
        outgoing.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(reply) }).end(reply);
      } catch (error) {
        const reply = JSON.stringify({ error: { message: (error as Error).message, type: 'invalid_request_error' } });
        outgoing.writeHead(400, { 'content-type': 'application/json' }).end(reply);
      }
    });
  });
  // Both loops keep their connections alive; the server must not be the one to drop them.
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests: () => requests,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
