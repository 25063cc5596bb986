/**
 * A Streamable HTTP server that restarted (or expired our session) answers a request carrying the
 * old `Mcp-Session-Id` with 404; the spec then requires a new session (a new initialize without
 * the id), and the request was never processed, so it may be sent again. Some servers answer 400
 * "no valid session" instead (the SDK's own example servers do), which means the same.
 */
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export function isSessionExpired(error: unknown): boolean {
  if (!(error instanceof StreamableHTTPError)) return false;
  if (error.code === 404) return true;
  return error.code === 400 && /session/i.test(error.message);
}
