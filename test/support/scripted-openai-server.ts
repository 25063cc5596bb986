/**
 * An OpenAI-compatible Chat Completions endpoint for tests: real HTTP on 127.0.0.1, scripted
 * replies in order, every request recorded. The real SDK and adapter talk to it exactly as they
 * would to a provider, retries and timeouts included. A step may also be a stream of Server-Sent
 * Events, written one by one as a provider streams them, and broken off or left hanging mid-way.
 *
 * Instead of a list, the script may be a router that chooses each step from the request itself:
 * for strategies whose requests differ by purpose (a planner, executors, a summary) and arrive
 * side by side, where no fixed order exists.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { signatureProblem, type SigningCredentials } from './sigv4-check.ts';

/** A reply with full control of the HTTP exchange (errors, retry headers, slow answers). */
export interface ScriptedResponse {
  status: number;
  /** Sent as JSON; a string is sent as it is (to script malformed bodies). */
  body: unknown;
  headers?: Record<string, string>;
  /** Wait this long before answering, to exercise timeouts and aborts. */
  delayMs?: number;
}

/** One Server-Sent Event: a chunk (sent as `data: <json>`), or lines sent as they are. */
export type ScriptedEvent = Record<string, unknown> | { raw: string };

/** A streamed reply (`text/event-stream`), answered 200 unless told otherwise. */
export interface ScriptedStream {
  sse: ScriptedEvent[];
  status?: number;
  headers?: Record<string, string>;
  /** Wait this long before each event (the first included), as a model writing. */
  delayMs?: number;
  /** Write each event in two parts (splitting UTF-8 characters too), as TCP may deliver it. */
  splitEvents?: boolean;
  /**
   * After the events: `done` sends `data: [DONE]` and ends (the default), `end` ends without it,
   * `reset` destroys the connection (a provider failing mid-stream), `hang` sends nothing more.
   */
  ending?: 'done' | 'end' | 'reset' | 'hang';
}

/** A completion body (answered 200), a full response, or a stream. */
export type ScriptStep = ScriptedResponse | ScriptedStream | Record<string, unknown>;

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body, or the raw text when it was not JSON. */
  body: unknown;
  /** Set when the server refused the request's SigV4 signature (`signedFor`), with the reason. */
  rejected?: string;
}

export interface ScriptedServerOptions {
  /**
   * Answers only requests signed with SigV4 by these credentials for this service and region, as
   * Bedrock's OpenAI-compatible endpoints do: any other request (a bearer key, a wrong secret, the
   * wrong scope) gets Bedrock's 403 and uses no step of the script.
   */
  signedFor?: { credentials: SigningCredentials; service: string; region: string };
}

/** A Chat Completions request body as the client sent it. */
export type ChatRequestBody = Record<string, unknown> & { messages: Array<Record<string, unknown>>; tools?: Array<Record<string, unknown>> };

/**
 * Chooses the step for a request from its body (`index` counts the completion requests, from 0).
 * It may wait (a step that answers only once another request has arrived); undefined is
 * answered as an exhausted script.
 */
export type ScriptRouter = (body: ChatRequestBody, index: number) => ScriptStep | undefined | Promise<ScriptStep | undefined>;

export interface ScriptedOpenAIServer {
  /** Ends in `/v1`, as the SDK's `baseURL` expects. */
  baseURL: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

const COMPLETIONS_PATH = '/v1/chat/completions';

const isScriptedStream = (step: ScriptStep): step is ScriptedStream => Array.isArray((step as Record<string, unknown>)['sse']);

const isCompletion = (body: unknown): body is Record<string, unknown> =>
  typeof body === 'object' && body !== null && Array.isArray((body as Record<string, unknown>).choices);

const isScriptedResponse = (step: ScriptStep): step is ScriptedResponse =>
  typeof step['status'] === 'number' && 'body' in step;

export async function startScriptedOpenAIServer(script: ScriptStep[] | ScriptRouter, options: ScriptedServerOptions = {}): Promise<ScriptedOpenAIServer> {
  const requests: RecordedRequest[] = [];
  const pending = new Set<NodeJS.Timeout>();
  let nextStep = 0;
  const stepFor = async (body: unknown): Promise<ScriptStep | undefined> => {
    const index = nextStep++;
    if (Array.isArray(script)) return script[index];
    try {
      return await script(body as ChatRequestBody, index);
    } catch (error) {
      // A router that throws is a test bug: answer so the test fails saying why, not with a timeout.
      return { status: 500, body: { error: { message: `Scripted OpenAI server: the router failed: ${String(error)}`, type: 'router_failed', param: null, code: 'router_failed' } }, headers: { 'x-should-retry': 'false' } };
    }
  };

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const raw = Buffer.concat(chunks);
      const text = raw.toString('utf8');
      const rejected = options.signedFor && signatureProblem({ method: request.method ?? '', path: request.url ?? '', headers: request.headers, body: raw }, options.signedFor.credentials, options.signedFor);
      requests.push({ method: request.method ?? '', path: request.url ?? '', headers: request.headers, body: parseJson(text), ...(rejected ? { rejected } : {}) });
      if (rejected) {
        // Bedrock's answer to a request it cannot authenticate: 403, the exception's name in a header, `{"message"}`.
        response.writeHead(403, { 'content-type': 'application/json', 'x-amzn-errortype': 'InvalidSignatureException' });
        response.end(JSON.stringify({ message: rejected }));
        return;
      }
      const step = request.method === 'POST' && request.url === COMPLETIONS_PATH ? await stepFor(parseJson(text)) : undefined;
      if (response.destroyed) return;
      if (step !== undefined && isScriptedStream(step)) {
        writeStream(response, step, pending);
        return;
      }
      // A completion scripted as one body goes out as chunks when the client asked for a stream
      // (an error status stays a plain error response, as providers answer it before streaming).
      const asked = parseJson(text) as { stream?: unknown } | string;
      const completion = step === undefined ? undefined : isScriptedResponse(step) ? (step.status === 200 && isCompletion(step.body) ? step.body : undefined) : step;
      if (completion && typeof asked === 'object' && asked?.stream === true) {
        const delayMs = step !== undefined && isScriptedResponse(step) ? step.delayMs : undefined;
        writeStream(response, { sse: completionChunks(completion), ...(delayMs === undefined ? {} : { delayMs }) }, pending);
        return;
      }
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

/** Writes the events one at a time, each after its delay, then ends as scripted. */
function writeStream(response: ServerResponse, step: ScriptedStream, pending: Set<NodeJS.Timeout>): void {
  const frames = step.sse.map((event) => Buffer.from('raw' in event && typeof event.raw === 'string' ? `${event.raw}\n\n` : `data: ${JSON.stringify(event)}\n\n`));
  const ending = step.ending ?? 'done';
  if (ending === 'done') frames.push(Buffer.from('data: [DONE]\n\n'));
  const later = (action: () => void, delayMs: number) => {
    const timer = setTimeout(() => {
      pending.delete(timer);
      if (!response.destroyed) action();
    }, delayMs);
    pending.add(timer);
  };
  const writeFrom = (position: number) => {
    if (position === frames.length) {
      if (ending === 'reset') response.destroy();
      else if (ending !== 'hang') response.end();
      return;
    }
    const frame = frames[position]!;
    // [DONE] comes right after the last event; every event waits its delay.
    const delayMs = position < step.sse.length ? (step.delayMs ?? 0) : 0;
    // Each write goes on once the previous one is flushed, so a reset never swallows sent events.
    later(() => {
      if (!step.splitEvents || frame.length < 2) {
        response.write(frame, () => writeFrom(position + 1));
        return;
      }
      const middle = Math.floor(frame.length / 2);
      response.write(frame.subarray(0, middle), () => later(() => response.write(frame.subarray(middle), () => writeFrom(position + 1)), 1));
    }, delayMs);
  };
  response.writeHead(step.status ?? 200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...step.headers });
  // Headers go out at once, as a provider's do, before the first event.
  response.flushHeaders();
  writeFrom(0);
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

/**
 * A completion body as OpenAI streams it: the role first, reasoning and content in pieces of
 * `pieceLength` characters, each call's id and name once with its arguments in pieces, the finish
 * reason, then the usage in a last chunk without choices (`stream_options.include_usage`).
 */
export function streamedAsOpenAI(body: Record<string, unknown>, options: { pieceLength?: number } = {}): ScriptedStream {
  const pieceLength = options.pieceLength ?? 4;
  const pieces = (text: string): string[] => {
    const characters = Array.from(text);
    const result: string[] = [];
    for (let start = 0; start < characters.length; start += pieceLength) result.push(characters.slice(start, start + pieceLength).join(''));
    return result;
  };
  const choice = (body['choices'] as Array<Record<string, unknown>>)[0]!;
  const message = choice['message'] as Record<string, unknown>;
  const chunk = (delta: Record<string, unknown>, finishReason: unknown = null) => ({
    id: body['id'] ?? 'chatcmpl-streamed',
    object: 'chat.completion.chunk',
    created: body['created'] ?? 0,
    model: body['model'] ?? 'gpt-4o',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    usage: null,
  });
  const events: ScriptedEvent[] = [chunk({ role: 'assistant', content: typeof message['content'] === 'string' ? '' : null, refusal: null })];
  for (const field of ['reasoning_content', 'reasoning']) {
    if (typeof message[field] === 'string') for (const text of pieces(message[field] as string)) events.push(chunk({ [field]: text }));
  }
  if (typeof message['content'] === 'string') for (const text of pieces(message['content'])) events.push(chunk({ content: text }));
  const calls = (message['tool_calls'] ?? []) as Array<{ id: string; type: string; function: { name: string; arguments: string } }>;
  calls.forEach((call, index) => {
    events.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] }));
    for (const text of pieces(call.function.arguments)) events.push(chunk({ tool_calls: [{ index, function: { arguments: text } }] }));
  });
  events.push(chunk({}, choice['finish_reason'] ?? 'stop'));
  if (body['usage']) events.push({ ...chunk({}), choices: [], usage: body['usage'] });
  return { sse: events };
}

/**
 * A completion body as the chunks a provider streams it in: the role, the reasoning and the text in
 * a few pieces, each tool call's id and name once and its arguments in two fragments, the finish
 * reason, then the usage (as `stream_options.include_usage` asks).
 */
export function completionChunks(body: Record<string, unknown>): Array<Record<string, unknown>> {
  const choice = ((body.choices as Array<Record<string, unknown>> | undefined) ?? [])[0] ?? {};
  const message = (choice.message as Record<string, unknown> | undefined) ?? {};
  const base = { id: body.id ?? 'chatcmpl-scripted', object: 'chat.completion.chunk', created: body.created ?? 0, model: body.model ?? 'scripted' };
  const chunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ ...base, choices: [{ index: 0, delta, finish_reason: null, ...extra }] });
  const pieces = (text: string) => {
    const third = Math.ceil(text.length / 3);
    return [text.slice(0, third), text.slice(third, 2 * third), text.slice(2 * third)].filter(Boolean);
  };
  const chunks: Array<Record<string, unknown>> = [chunk({ role: 'assistant', content: '' })];
  for (const field of ['reasoning_content', 'reasoning']) {
    if (typeof message[field] === 'string') for (const piece of pieces(message[field] as string)) chunks.push(chunk({ [field]: piece }));
  }
  if (typeof message.content === 'string') for (const piece of pieces(message.content)) chunks.push(chunk({ content: piece }));
  const calls = (message.tool_calls as Array<{ id: string; type: string; function: { name: string; arguments: string } }> | undefined) ?? [];
  calls.forEach((call, index) => {
    const [head = '', tail = ''] = [call.function.arguments.slice(0, Math.ceil(call.function.arguments.length / 2)), call.function.arguments.slice(Math.ceil(call.function.arguments.length / 2))];
    chunks.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: head } }] }));
    if (tail) chunks.push(chunk({ tool_calls: [{ index, function: { arguments: tail } }] }));
  });
  chunks.push({ ...base, choices: [{ index: 0, delta: {}, finish_reason: choice.finish_reason ?? 'stop' }] });
  if (body.usage) chunks.push({ ...base, choices: [], usage: body.usage });
  return chunks;
}
