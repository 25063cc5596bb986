import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/**
 * A line of a stdio server's output as the SDK's `deserializeMessage` reads it: JSON, then checked
 * and copied by the SDK's JSON-RPC message schema (a union of request, notification, result and
 * error). Most lines are results, and for them that union is most of the reading: zod tries the
 * request and the notification first, and in the functions it interprets (functions/interpreted-zod.ts):
 * in a microbenchmark 4 to 6 µs a line against about 1 µs here, and far more over the first few
 * hundred lines of a process (docs/benchmarks.md).
 *
 * So a result of the plain shape is read here, to what the schema gives for it: exactly the keys
 * `jsonrpc` ("2.0"), `id` (a string or a safe integer) and `result` (an object, copied with its own
 * keys). Anything else, and a result that holds `_meta` (the schema checks it) or a `__proto__` key
 * (which zod's copy would set as the prototype), goes to the schema as before, so what is accepted,
 * what is refused and with which error stays the SDK's (test/unit/mcp-json-rpc-line.test.ts holds
 * the two to the same answers).
 */
export function readJsonRpcLine(line: string): JSONRPCMessage {
  const value: unknown = JSON.parse(line);
  return plainResult(value) ?? JSONRPCMessageSchema.parse(value);
}

function plainResult(value: unknown): JSONRPCMessage | undefined {
  if (!isPlainObject(value) || Object.keys(value).length !== 3) return undefined;
  const { jsonrpc, id, result } = value;
  if (jsonrpc !== '2.0' || !(typeof id === 'string' || Number.isSafeInteger(id))) return undefined;
  if (!isPlainObject(result) || Object.hasOwn(result, '_meta') || Object.hasOwn(result, '__proto__')) return undefined;
  return { jsonrpc, id: id as string | number, result: { ...result } };
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
