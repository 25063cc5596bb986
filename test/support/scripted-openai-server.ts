/**
 * An OpenAI-compatible Chat Completions endpoint for tests: real HTTP on 127.0.0.1, scripted
 * replies in order, every request recorded. The real SDK and adapter talk to it exactly as they
 * would to a provider, retries and timeouts included.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A reply with full control of the HTTP exchange (errors, retry headers, slow answers). */
export interface ScriptedResponse {
  status: number;
  /** Sent as JSON; a string is sent as it is (to script malformed bodies). */
  body: unknown;
  headers?: Record<string, string>;
  /** Wait this long before answering, to exercise timeouts and aborts. */
  delayMs?: number;
}

/** A completion body (answered 200) or a full response. */
export type ScriptStep = ScriptedResponse | Record<string, unknown>;

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body, or the raw text when it was not JSON. */
  body: unknown;
}

export interface ScriptedOpenAIServer {
  /** Ends in `/v1`, as the SDK's `baseURL` expects. */
  baseURL: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

const COMPLETIONS_PATH = '/v1/chat/completions';

const isScriptedResponse = (step: ScriptStep): step is ScriptedResponse =>
  typeof step['status'] === 'number' && 'body' in step;

export async function startScriptedOpenAIServer(script: ScriptStep[]): Promise<ScriptedOpenAIServer> {
  const requests: RecordedRequest[] = [];
  const pending = new Set<NodeJS.Timeout>();
  let nextStep = 0;

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: request.method ?? '', path: request.url ?? '', headers: request.headers, body: parseJson(text) });
      const step = request.method === 'POST' && request.url === COMPLETIONS_PATH ? script[nextStep++] : undefined;
      const reply = step === undefined ? unscripted(request.method, request.url, requests.length) : toResponse(step);
      const send = () => {
        pending.delete(timer);
        if (response.destroyed) return;
        const payload = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
        response.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
        response.end(payload);
      };
      const timer = setTimeout(send, reply.delayMs ?? 0);
      pending.add(timer);
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    close: async () => {
      for (const timer of pending) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}

function toResponse(step: ScriptStep): ScriptedResponse {
  return isScriptedResponse(step) ? step : { status: 200, body: step };
}

/** A loud, non-retryable failure: a test that sends more requests than scripted should say so. */
function unscripted(method: string | undefined, path: string | undefined, requestNumber: number): ScriptedResponse {
  const scripted = method === 'POST' && path === COMPLETIONS_PATH;
  const message = scripted
    ? `Scripted OpenAI server: the script is exhausted, no reply left for request #${requestNumber}.`
    : `Scripted OpenAI server: only POST ${COMPLETIONS_PATH} is scripted, got ${method} ${path}.`;
  return {
    status: scripted ? 500 : 404,
    body: { error: { message, type: 'script_exhausted', param: null, code: 'script_exhausted' } },
    // Otherwise the SDK would retry the 500 and the test would fail later, less clearly.
    headers: { 'x-should-retry': 'false' },
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export interface ScriptedToolCall {
  id: string;
  name: string;
  /** JSON text as the model would send it; an object is serialized. */
  arguments: string | Record<string, unknown>;
}

/** A gpt-4-turbo reply asking for tools, shaped like the original request's first response. */
export function toolCallsReply(calls: ScriptedToolCall[]): Record<string, unknown> {
  return completion(
    {
      role: 'assistant',
      content: null,
      tool_calls: calls.map((call) => ({
        id: call.id,
        type: 'function',
        function: {
          name: call.name,
          arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
        },
      })),
      refusal: null,
      annotations: [],
    },
    'tool_calls',
    { prompt: 188, completion: 16 },
  );
}

/** A gpt-4-turbo final answer, shaped like the original request's second response. */
export function textReply(text: string): Record<string, unknown> {
  return completion(
    { role: 'assistant', content: text, refusal: null, annotations: [] },
    'stop',
    { prompt: 192, completion: 171 },
  );
}

let completionCounter = 0;

function completion(
  message: Record<string, unknown>,
  finishReason: string,
  tokens: { prompt: number; completion: number },
): Record<string, unknown> {
  completionCounter += 1;
  return {
    id: `chatcmpl-scripted${String(completionCounter).padStart(6, '0')}`,
    object: 'chat.completion',
    created: 1747411834 + completionCounter,
    model: 'gpt-4-turbo-2024-04-09',
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason }],
    usage: {
      prompt_tokens: tokens.prompt,
      completion_tokens: tokens.completion,
      total_tokens: tokens.prompt + tokens.completion,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      completion_tokens_details: {
        reasoning_tokens: 0,
        audio_tokens: 0,
        accepted_prediction_tokens: 0,
        rejected_prediction_tokens: 0,
      },
    },
    service_tier: 'default',
    system_fingerprint: 'fp_de235176ee',
  };
}
