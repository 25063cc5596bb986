import { describe, expect, it } from 'vitest';
import { boundEventStream } from '../../lib/adapters/mcp/bounded/event-stream.ts';
import { boundJsonBody } from '../../lib/adapters/mcp/bounded/json-body.ts';
import { PendingRequests } from '../../lib/adapters/mcp/bounded/pending.ts';
import { recordingLogger } from '../support/recording-logger.ts';

const LIMIT = 1_000;
const big = 'x'.repeat(5_000);

function waiting(...ids: number[]): PendingRequests {
  const pending = new PendingRequests();
  pending.sent(ids.map((id) => ({ jsonrpc: '2.0' as const, id, method: 'tools/call' })));
  return pending;
}

function streamOf(chunks: string[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
      controller.close();
    },
  });
}

async function readAll(stream: ReadableStream<Uint8Array>): Promise<string> {
  return new Response(stream).text();
}

function options(pending: PendingRequests, exclusive = false) {
  return { maxResultBytes: LIMIT, server: 'test', logger: recordingLogger(), pending, exclusive };
}

const tooLarge = (id: number, receivedBytes: number) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    error: {
      code: -32099,
      message: `the response was larger than ${LIMIT} bytes (tools.maxResultBytes) and was cut off while it arrived`,
      data: { maxResultBytes: LIMIT, receivedBytes },
    },
  });

describe('boundEventStream', () => {
  it.each([
    ['closes with no event ids', ['data: {"jsonrpc":"2.0","method":"notifications/message"}\n\n'], false, { broken: false, resumable: false }],
    ['closes after a priming event', ['id: 5\nretry: 500\ndata: \n\n'], false, { broken: false, resumable: true }],
    ['breaks off after a priming event', ['id: 5\ndata: \n\n'], true, { broken: true, resumable: true }],
  ])('tells how a stream that owes an answer ended when it %s', async (_case, chunks, breaks, ending) => {
    const endings: unknown[] = [];
    const left = [...chunks];
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        const chunk = left.shift();
        if (chunk !== undefined) controller.enqueue(new TextEncoder().encode(chunk));
        else if (breaks) controller.error(new TypeError('terminated'));
        else controller.close();
      },
    });

    const read = readAll(boundEventStream(body, { ...options(waiting(1), true), onEnd: (ended) => endings.push(ended) }));
    await (breaks ? expect(read).rejects.toThrow('terminated') : read);

    expect(endings).toEqual([ending]);
  });

  it('passes events within the limit as they were, whatever their line endings and chunks', async () => {
    const chunks = ['event: endpoint\r', '\ndata: /messages?session=1\r\n\r', '\n: keep-alive\n\n', 'id: 7\rdata: {"jsonrpc":"2.0",', '"id":1,"result":{}}\r\r'];

    const text = await readAll(boundEventStream(streamOf(chunks), options(waiting(1))));

    expect(text).toBe('event: endpoint\ndata: /messages?session=1\n\n: keep-alive\n\nid: 7\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n');
  });

  it('replaces an oversize response with an error for its request, keeping its event id, and passes the next event', async () => {
    const response = `{"result":{"text":"${big}"},"jsonrpc":"2.0","id":2}`;
    const chunks = ['event: message\nid: 41\ndata: ', response.slice(0, 2_000), response.slice(2_000), '\n\n', 'data: {"jsonrpc":"2.0","id":3,"result":{}}\n\n'];
    const pending = waiting(2, 3);

    const text = await readAll(boundEventStream(streamOf(chunks), options(pending)));

    expect(text).toBe(`event: message\nid: 41\ndata: ${tooLarge(2, response.length)}\n\ndata: {"jsonrpc":"2.0","id":3,"result":{}}\n\n`);
    expect(pending.size).toBe(0);
  });

  it('counts every data line of an event toward the limit', async () => {
    const line = 'x'.repeat(300);
    const chunks = [`data: {"jsonrpc":"2.0","id":1,"result":{"text":"\ndata: ${line}\ndata: ${line}\ndata: ${line}\ndata: ${line}"}}\n\n`];

    const text = await readAll(boundEventStream(streamOf(chunks), options(waiting(1))));

    expect(text).toMatch(/^event: message\ndata: \{"jsonrpc":"2.0","id":1,"error":\{"code":-32099,/);
  });

  it('drops an oversize notification without failing the request that waits', async () => {
    const logger = recordingLogger();
    const chunks = [`event: message\ndata: {"method":"notifications/message","params":{"data":"${big}"},"jsonrpc":"2.0"}\n\n`, 'data: {"jsonrpc":"2.0","id":1,"result":{}}\n\n'];

    const text = await readAll(boundEventStream(streamOf(chunks), { ...options(waiting(1)), logger }));

    expect(text).toBe('data: {"jsonrpc":"2.0","id":1,"result":{}}\n\n');
    expect(logger.entries).toEqual([
      {
        level: 'warn',
        message: 'mcp message over tools.maxResultBytes cut off',
        fields: { server: 'test', maxResultBytes: LIMIT, receivedBytes: expect.any(Number), dropped: 'a request or notification from the server' },
      },
    ]);
  });

  it("stops reading a POST's own stream once its only request is answered, however much more the server sends", async () => {
    let sent = 0;
    let cancelled = false;
    const endless = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('event: message\ndata: {"result":{"content":[{"type":"text","text":"'));
      },
      pull(controller) {
        sent += 64 * 1024;
        controller.enqueue(new Uint8Array(64 * 1024).fill(0x78));
      },
      cancel() {
        cancelled = true;
      },
    });

    const text = await readAll(boundEventStream(endless, { ...options(waiting(1), true), maxResultBytes: 1_048_576 }));

    expect(JSON.parse(text.replace(/^event: message\ndata: /, ''))).toMatchObject({ id: 1, error: { code: -32099 } });
    expect(cancelled).toBe(true);
    expect(sent).toBeLessThan(2 * 1_048_576);
  });
});

describe('boundJsonBody', () => {
  it('passes a body within the limit as it was, and settles its requests', async () => {
    const pending = waiting(1);
    const body = '{"jsonrpc":"2.0","id":1,"result":{}}';

    const text = await readAll(boundJsonBody(streamOf([body]), options(pending)));

    expect(text).toBe(body);
    expect(pending.size).toBe(0);
  });

  it('answers every request of the POST with the error once the body passes the limit', async () => {
    const chunks = ['[{"jsonrpc":"2.0","id":1,"result":{"text":"', big.slice(0, 600), big.slice(600), '"}}]'];

    const text = await readAll(boundJsonBody(streamOf(chunks), options(waiting(1, 2))));

    // The third chunk passed the limit: the last one is never read.
    const received = chunks.slice(0, 3).join('').length;
    expect(JSON.parse(text)).toEqual([JSON.parse(tooLarge(1, received)), JSON.parse(tooLarge(2, received))]);
  });
});
