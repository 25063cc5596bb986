import { describe, expect, it } from 'vitest';
import { ByteWindow } from '../../lib/adapters/mcp/bounded/bytes.ts';
import { readEnvelope } from '../../lib/adapters/mcp/bounded/envelope.ts';
import { judgeOversize, RESULT_TOO_LARGE } from '../../lib/adapters/mcp/bounded/oversize.ts';
import { PendingRequests } from '../../lib/adapters/mcp/bounded/pending.ts';

const filler = 'z'.repeat(5_000);
const result = `{"content":[{"type":"text","text":"${filler}"}]}`;

function windowOf(text: string): ByteWindow {
  const window = new ByteWindow();
  window.add(Buffer.from(text));
  return window;
}

function envelopeOf(text: string) {
  const window = windowOf(text);
  return readEnvelope(window.head, window.tail);
}

function waiting(...ids: (string | number)[]): PendingRequests {
  const pending = new PendingRequests();
  pending.sent(ids.map((id) => ({ jsonrpc: '2.0' as const, id, method: 'tools/call' })));
  return pending;
}

describe('readEnvelope', () => {
  it.each([
    ['the head (Python SDK order)', `{"jsonrpc":"2.0","id":5,"result":${result}}`, 5],
    ['the tail (TypeScript SDK order)', `{"result":${result},"jsonrpc":"2.0","id":5}`, 5],
    ['the tail, a string id with an escaped quote', `{"result":${result},"jsonrpc":"2.0","id":"a\\"b"}`, 'a"b'],
    ['the head, with whitespace', `{ "jsonrpc" : "2.0" , "id" : "req-1" , "result" : ${result} }`, 'req-1'],
  ])('reads the id from %s', (_where, text, id) => {
    expect(envelopeOf(text).members.get('id')).toEqual(id);
  });

  it('never takes an id nested inside the result for the message id', () => {
    const text = `{"jsonrpc":"2.0","result":{"text":"${filler}","id":7}}`;

    expect(envelopeOf(text).members.has('id')).toBe(false);
  });

  it('never takes an id written inside a string for the message id', () => {
    const text = `{"result":{"text":"${filler} \\",\\"id\\":9}"},"id":3}`;

    expect(envelopeOf(text).members.get('id')).toBe(3);
  });

  it.each([
    ['a result', `{"jsonrpc":"2.0","id":1,"result":${result}}`, 'result'],
    ['an error', `{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"${filler}"}}`, 'error'],
    ['params', `{"method":"notifications/message","params":{"data":"${filler}"},"jsonrpc":"2.0"}`, 'params'],
  ])('names the first nested member, %s', (_what, text, key) => {
    expect(envelopeOf(text).firstNested).toBe(key);
  });
});

describe('judgeOversize', () => {
  const judge = (text: string, pending: PendingRequests, ended: boolean, exclusive = false) =>
    judgeOversize({ window: windowOf(text), ended, pending, exclusive, maxResultBytes: 1_000 });

  it('answers the waiting request named in the head as soon as the message is cut', () => {
    const pending = waiting(4, 5);

    const verdict = judge(`{"jsonrpc":"2.0","id":5,"result":${result}`, pending, false);

    expect(verdict).toEqual({
      answer: {
        jsonrpc: '2.0',
        id: 5,
        error: {
          code: RESULT_TOO_LARGE,
          message: 'the response was larger than 1000 bytes (tools.maxResultBytes) and was cut off while it arrived',
          data: { maxResultBytes: 1_000, receivedBytes: expect.any(Number) },
        },
      },
    });
    expect(pending.all()).toEqual([4]);
  });

  it('waits for the end of a message whose id comes last, then answers that request', () => {
    const pending = waiting(4, 5);
    const text = `{"result":${result},"jsonrpc":"2.0","id":5}`;

    expect(judge(text.slice(0, 3_000), pending, false)).toEqual({ wait: true });
    expect(judge(text, pending, true)).toMatchObject({ answer: { id: 5 } });
  });

  it('drops a response to a request that no longer waits', () => {
    expect(judge(`{"jsonrpc":"2.0","id":9,"result":${result}}`, waiting(5), true)).toEqual({
      drop: 'a response to no waiting request',
    });
  });

  it('blames the only waiting request when the id cannot be read, and nobody when two wait', () => {
    const unreadable = `{"result":${result},"jsonrpc":"2.0","id":"${'long id '.repeat(200)}"}`;

    expect(judge(unreadable, waiting(5), true)).toMatchObject({ answer: { id: 5 } });
    expect(judge(unreadable, waiting(5, 6), true)).toEqual({ drop: 'its request id could not be read' });
  });

  it('blames the only request of an exclusive stream at the cut, without waiting for the id', () => {
    expect(judge(`{"result":${result}`, waiting(5), false, true)).toMatchObject({ answer: { id: 5 } });
  });

  it.each([
    ['a notification', `{"method":"notifications/message","params":{"data":"${filler}"},"jsonrpc":"2.0"}`],
    ['a request (Python SDK order)', `{"jsonrpc":"2.0","id":5,"method":"sampling/createMessage","params":{"x":"${filler}"}}`],
  ])('never answers for %s from the server, even with one request waiting', (_what, text) => {
    expect(judge(text, waiting(5), true)).toEqual({ drop: 'a request or notification from the server' });
  });

  it('forgets a request once the client cancels it', () => {
    const pending = waiting(5);

    pending.sent({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 5 } });

    expect(pending.size).toBe(0);
  });
});
