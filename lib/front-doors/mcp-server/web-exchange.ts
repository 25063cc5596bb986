import { EventStreamBody, type StreamingHttpResponse } from '../../http/event-stream.ts';
import type { HttpRequest } from '../../http/types.ts';

/**
 * The project's request as the web-standard Request the SDK's handler serves (the host is a
 * placeholder: only the path and query matter to it).
 */
export function toWebRequest(request: HttpRequest): Request {
  const url = new URL(`http://mcp.invalid${request.path}`);
  for (const [name, value] of Object.entries(request.query ?? {})) if (value !== undefined) url.searchParams.set(name, value);
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) if (value !== undefined) headers.set(name, value);
  const hasBody = request.body !== undefined && request.method !== 'GET' && request.method !== 'HEAD';
  return new Request(url, { method: request.method, headers, ...(hasBody ? { body: request.body } : {}) });
}

/**
 * The SDK's Response as the project's: an SSE answer (the SDK upgrades a call to a stream once it
 * sends a progress notification before its result) becomes an event stream written as it comes,
 * whose `settled` holds the Lambda until the turn has ended; anything else is read whole.
 */
export async function fromWebResponse(response: Response): Promise<StreamingHttpResponse> {
  const headers = Object.fromEntries(response.headers);
  const source = response.body;
  if (response.status !== 200 || source === null || !(headers['content-type'] ?? '').startsWith('text/event-stream')) {
    return { statusCode: response.status, headers, body: await response.text() };
  }
  const body = new EventStreamBody();
  body.settled = (async () => {
    try {
      for await (const chunk of source) body.write(chunk);
    } finally {
      body.end();
    }
  })().catch(() => undefined);
  return { statusCode: 200, headers, body };
}
