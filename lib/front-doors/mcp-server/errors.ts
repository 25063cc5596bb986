import type { Logger } from '../../core/logger.ts';
import { errorResponse } from '../../http/errors.ts';
import type { HttpResponse } from '../../http/types.ts';

/**
 * An error before the SDK answered (a wrong method, a caller who could not be identified, a body
 * too large) as a JSON-RPC error, which MCP clients read: the status, headers and message of the
 * native API (lib/http/errors.ts), and its stable code in `data`.
 */
export function mcpErrorResponse(error: unknown, logger: Logger): HttpResponse {
  const native = errorResponse(error, logger);
  const { error: body } = JSON.parse(native.body) as { error: { code: string; message: string } };
  const rpcError = { code: native.statusCode >= 500 ? INTERNAL_ERROR : INVALID_REQUEST, message: body.message, data: { code: body.code } };
  return { statusCode: native.statusCode, headers: native.headers, body: JSON.stringify({ jsonrpc: '2.0', id: null, error: rpcError }) };
}

const INVALID_REQUEST = -32600;
const INTERNAL_ERROR = -32603;
