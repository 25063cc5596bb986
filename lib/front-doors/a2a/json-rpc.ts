import { A2A_VERSION_HEADER, type AgentCard } from '@a2a-js/sdk';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { JsonRpcTransportHandler, ServerCallContext, validateVersion, type A2ARequestHandler } from '@a2a-js/sdk/server';
import type { Logger } from '../../core/logger.ts';
import { readJsonObject } from '../../http/body.ts';
import { json } from '../../http/errors.ts';
import { EventStreamBody, type StreamingHttpResponse } from '../../http/event-stream.ts';
import { EVENT_STREAM_HEADERS, encodeComment } from '../../http/sse.ts';
import type { HttpRequest, HttpResponse } from '../../http/types.ts';

interface JsonRpcOptions {
  handler: A2ARequestHandler & { nativeFailure?: HttpResponse | undefined };
  card: AgentCard;
  logger: Logger;
  maxBodyBytes: number;
  /** A comment this often while a stream waits for its next event (none when absent). */
  heartbeatMs?: number;
}

type Envelope = { jsonrpc: string; id: string | number | null; error?: unknown };

/** v0.3 when the client names no version, as the A2A specification and the SDK's own server have it. */
const isLegacy = (version: string) => /^0\.3(\.\d+)?$/.test(version);

/**
 * One JSON-RPC request through the SDK's transport handler for the version the client asked for
 * (`A2A-Version`: 1.0 has SendMessage, SendStreamingMessage, GetTask, CancelTask; 0.3 or none has
 * message/send, message/stream, tasks/get, tasks/cancel), as the SDK's Express handler does it:
 *
 *   an answer or an error       -> 200 with the JSON-RPC envelope; an error of the agent keeps the
 *                                  native status and headers (409 and Retry-After for a busy
 *                                  conversation, 429 for a limit, 502 for the model), another
 *                                  internal error is 500
 *   a stream that fails before
 *   its first event             -> the same, as JSON: nothing is promised until the turn starts
 *   a stream                    -> 200 text/event-stream, `data: <envelope>` per event; a failure
 *                                  after that is an `event: error` frame
 */
export async function answerJsonRpc(request: HttpRequest, options: JsonRpcOptions): Promise<StreamingHttpResponse> {
  const body = readJsonObject(request, options.maxBodyBytes);
  const version = request.headers[A2A_VERSION_HEADER.toLowerCase()]?.trim() || '0.3';
  const legacy = isLegacy(version);
  const mapError = legacy ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError : JsonRpcTransportHandler.mapToJSONRPCError;
  const errorEnvelope = (error: unknown) => ({ jsonrpc: '2.0', id: (body.id as string | number | undefined) ?? null, error: mapError(error) });
  let answer: Envelope | AsyncGenerator<Envelope, void, undefined>;
  try {
    validateVersion(legacy ? '0.3' : version, options.card, 'JSONRPC');
    const context = new ServerCallContext({ requestedVersion: legacy ? '0.3' : version });
    const transport = legacy ? new LegacyJsonRpcTransportHandler(options.handler) : new JsonRpcTransportHandler(options.handler);
    answer = await transport.handle(body, context);
  } catch (error) {
    return envelopeResponse(errorEnvelope(error), options.handler.nativeFailure);
  }
  if (!(Symbol.asyncIterator in answer)) return envelopeResponse(answer, options.handler.nativeFailure);

  const events = answer;
  let first: IteratorResult<Envelope, void>;
  try {
    first = await events.next();
  } catch (error) {
    return envelopeResponse(errorEnvelope(error), options.handler.nativeFailure);
  }
  const stream = new EventStreamBody();
  const write = (frame: string) => {
    if (!stream.destroyed) stream.write(frame);
  };
  const heartbeat = options.heartbeatMs === undefined ? undefined : setInterval(() => write(encodeComment('keep-alive')), options.heartbeatMs);
  stream.settled = (async () => {
    try {
      if (!first.done) write(`data: ${JSON.stringify(first.value)}\n\n`);
      // Read to the end even when the client has gone: the turn goes on and is stored.
      for await (const event of { [Symbol.asyncIterator]: () => events }) write(`data: ${JSON.stringify(event)}\n\n`);
    } catch (error) {
      options.logger.error('an A2A stream failed after it began', { error: String(error) });
      write(`event: error\ndata: ${JSON.stringify(errorEnvelope(error))}\n\n`);
    } finally {
      clearInterval(heartbeat);
      if (!stream.destroyed) stream.end();
    }
  })();
  return { statusCode: 200, headers: { ...EVENT_STREAM_HEADERS }, body: stream };
}

function envelopeResponse(envelope: Envelope, nativeFailure: HttpResponse | undefined): StreamingHttpResponse {
  if (envelope.error === undefined) return json(200, envelope);
  if (nativeFailure) {
    const { 'content-type': _json, ...headers } = nativeFailure.headers;
    return json(nativeFailure.statusCode, envelope, headers);
  }
  const internal = (envelope.error as { code?: number }).code === -32603;
  return json(internal ? 500 : 200, envelope);
}
