/**
 * A stand-in for the global `awslambda` that the Lambda Node.js runtime gives streaming functions,
 * installed only where the runtime's own is missing: on the local server and in tests. Imported for its effect
 * before middy's streaming mode, which calls `awslambda.streamifyResponse` when the handler is built.
 *
 * It keeps the runtime's wire format (aws-lambda-nodejs-runtime-interface-client, HttpResponseStream):
 *
 *   {"statusCode":200,"headers":{...}}   the metadata prelude, JSON (it can hold no NUL byte)
 *   \0\0\0\0\0\0\0\0                     8 NUL bytes
 *   body bytes...                        as the handler writes them
 *
 * The local server decodes it back into a node:http response (lib/local/lambda-bridge.ts).
 */
import type { Writable } from 'node:stream';

/** The content type the runtime gives a stream that starts with a metadata prelude. */
export const PRELUDE_CONTENT_TYPE = 'application/vnd.awslambda.http-integration-response';
export const PRELUDE_DELIMITER = Buffer.alloc(8);

/** How the runtime marks a handler that takes a response stream (Symbol.for, so it is the runtime's own). */
const HANDLER_STREAMING = Symbol.for('aws.lambda.runtime.handler.streaming');
const HANDLER_HIGH_WATER_MARK = Symbol.for('aws.lambda.runtime.handler.streaming.highWaterMark');

type ResponseStream = Writable & { setContentType?: (contentType: string) => void };

class HttpResponseStream {
  /** Writes the prelude and the delimiter right before the first byte of the body, as the runtime does. */
  static from(stream: ResponseStream, prelude: Record<string, unknown>): ResponseStream {
    stream.setContentType?.(PRELUDE_CONTENT_TYPE);
    const metadata = JSON.stringify(prelude);
    const write = stream.write.bind(stream);
    const end = stream.end.bind(stream);
    let preludeWritten = false;
    const writePrelude = () => {
      if (preludeWritten) return;
      preludeWritten = true;
      write(metadata);
      write(PRELUDE_DELIMITER);
    };
    stream.write = ((...args: Parameters<Writable['write']>) => {
      writePrelude();
      return write(...args);
    }) as Writable['write'];
    stream.end = ((...args: Parameters<Writable['end']>) => {
      writePrelude();
      return end(...args);
    }) as Writable['end'];
    return stream;
  }
}

/** The runtime only marks the handler; it then calls it as (event, responseStream, context). */
function streamifyResponse<T extends object>(handler: T, options?: { highWaterMark?: number }): T {
  Object.assign(handler, { [HANDLER_STREAMING]: 'response' });
  if (typeof options?.highWaterMark === 'number') Object.assign(handler, { [HANDLER_HIGH_WATER_MARK]: options.highWaterMark });
  return handler;
}

// Other libraries (@aws/lambda-invoke-store, loaded by Powertools) create an empty `awslambda` for
// their own use, so each member is filled in only when it is missing, never replaced.
const scope = globalThis as { awslambda?: Record<string, unknown> };
scope.awslambda ??= {};
scope.awslambda.streamifyResponse ??= streamifyResponse;
scope.awslambda.HttpResponseStream ??= HttpResponseStream;
