/**
 * Bounds an `application/json` response to a Streamable HTTP POST. The body holds the answers to
 * that POST's requests and nothing else, so one over `maxResultBytes` is abandoned at that point
 * (the download is cancelled) and replaced by an error response for each of them: every one of
 * them was lost with it. A body within the limit passes unchanged.
 */
import { BoundedBytes } from './bytes.ts';
import { resultTooLarge } from './oversize.ts';
import type { PendingRequests } from './pending.ts';
import { reportDropped, type BoundedReadingOptions } from './reading.ts';

export function boundJsonBody(
  body: ReadableStream<Uint8Array>,
  options: BoundedReadingOptions & { pending: PendingRequests },
): ReadableStream<Uint8Array> {
  const upstream = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const received = new BoundedBytes(options.maxResultBytes);
      for (;;) {
        const { value, done } = await upstream.read();
        if (done) break;
        if (received.add(Buffer.from(value.buffer, value.byteOffset, value.byteLength))) {
          await upstream.cancel().catch(() => undefined);
          controller.enqueue(Buffer.from(JSON.stringify(answerAll(received.bytes))));
          controller.close();
          return;
        }
      }
      // The JSON the server sent answers this POST's requests, whatever it says.
      for (const id of options.pending.all()) options.pending.settle(id);
      controller.enqueue(received.whole());
      controller.close();
    },
    cancel(reason) {
      return upstream.cancel(reason);
    },
  });

  function answerAll(receivedBytes: number) {
    const answers = options.pending.all().map((id) => {
      options.pending.settle(id);
      const answer = resultTooLarge(id, { maxResultBytes: options.maxResultBytes, receivedBytes });
      reportDropped(options, receivedBytes, { answer });
      return answer;
    });
    return answers.length === 1 ? answers[0] : answers;
  }
}
