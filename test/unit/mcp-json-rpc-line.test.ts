import { describe, expect, it } from 'vitest';
import { deserializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import { readJsonRpcLine } from '../../lib/adapters/mcp/bounded/json-rpc-line.ts';

/** What reading a line gives: the message (its JSON, so key order counts, and its prototype), or the error. */
function outcome(read: (line: string) => unknown, line: string) {
  try {
    const message = read(line) as { result?: object };
    const prototype = message.result === undefined ? 'none' : Object.getPrototypeOf(message.result) === Object.prototype ? 'Object' : 'other';
    return { json: JSON.stringify(message), prototype, message };
  } catch (error) {
    return { error: `${(error as Error).name}: ${(error as Error).message}` };
  }
}

const lines: Array<[string, string]> = [
  ['a tool result', '{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"3"}],"isError":false}}'],
  ['keys in another order', '{"result":{"b":1,"a":{"c":[1,2]}},"id":"req-1","jsonrpc":"2.0"}'],
  ['an empty result', '{"jsonrpc":"2.0","id":0,"result":{}}'],
  ['a result with _meta', '{"jsonrpc":"2.0","id":1,"result":{"_meta":{"progressToken":"t","extra":true},"content":[]}}'],
  ['a result whose _meta is not an object', '{"jsonrpc":"2.0","id":1,"result":{"_meta":5}}'],
  ['a result with a __proto__ key', '{"jsonrpc":"2.0","id":1,"result":{"__proto__":{"polluted":true},"content":[]}}'],
  ['a result that is an array', '{"jsonrpc":"2.0","id":1,"result":[1,2]}'],
  ['a result that is null', '{"jsonrpc":"2.0","id":1,"result":null}'],
  ['a result that is a string', '{"jsonrpc":"2.0","id":1,"result":"done"}'],
  ['an id that is not whole', '{"jsonrpc":"2.0","id":1.5,"result":{}}'],
  ['an id beyond the safe integers', '{"jsonrpc":"2.0","id":9007199254740993,"result":{}}'],
  ['an id that is negative zero', '{"jsonrpc":"2.0","id":-0,"result":{}}'],
  ['an id that is null', '{"jsonrpc":"2.0","id":null,"result":{}}'],
  ['an id that is an object', '{"jsonrpc":"2.0","id":{"n":1},"result":{}}'],
  ['another JSON-RPC version', '{"jsonrpc":"1.0","id":1,"result":{}}'],
  ['no version', '{"id":1,"result":{},"extra":1}'],
  ['a key more', '{"jsonrpc":"2.0","id":1,"result":{},"extra":true}'],
  ['a result and an error', '{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}'],
  ['no id', '{"jsonrpc":"2.0","result":{},"method":"x"}'],
  ['an error response', '{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Method not found","data":{"x":1}}}'],
  ['an error without an id', '{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}'],
  ['a request from the server', '{"jsonrpc":"2.0","id":"s-1","method":"sampling/createMessage","params":{"messages":[],"maxTokens":5}}'],
  ['a notification', '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":0.5}}'],
  ['a notification with a key more', '{"jsonrpc":"2.0","method":"notifications/message","params":{},"extra":1}'],
  ['an array (a batch)', '[{"jsonrpc":"2.0","id":1,"result":{}}]'],
  ['null', 'null'],
  ['a number', '42'],
  ['text that is not JSON', 'Server started on stdio'],
  ['JSON cut short', '{"jsonrpc":"2.0","id":1,"result":{"content":['],
];

describe('reading a stdio line (readJsonRpcLine)', () => {
  it.each(lines)('answers as the SDK does for %s', (_name, line) => {
    expect(outcome(readJsonRpcLine, line)).toEqual(outcome(deserializeMessage, line));
  });

  it('gives a plain result with the keys the schema gives, in its order', () => {
    const line = '{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"ok"}]}}';
    const message = readJsonRpcLine(line) as { result: Record<string, unknown> };
    expect(message).toEqual({ jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'ok' }] } });
    expect(Object.keys(message)).toEqual(['jsonrpc', 'id', 'result']);
  });
});
