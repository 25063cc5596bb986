/**
 * Bounds a Server-Sent Events body (a Streamable HTTP response or GET stream, the legacy SSE
 * stream): an event over `maxResultBytes` is dropped while it arrives and, when it was the
 * response to a waiting request, replaced by an event carrying the error response (oversize.ts).
 * Every other event passes unchanged (line endings normalized to `\n`).
 *
 * An event is held until its blank line, never more than `maxResultBytes` of it: the client's
 * parser dispatches it only then anyway, and a held event can still be withdrawn if it grows too
 * large. Of a dropped event only its type, its id and the first and last bytes of its data remain.
 */
import { BoundedBytes, ByteWindow } from './bytes.ts';
import { splitLines } from './lines.ts';
import { answeredRequest, judgeOversize } from './oversize.ts';
import type { PendingRequests } from './pending.ts';
import { reportDropped, type BoundedReadingOptions } from './reading.ts';

interface EventStreamOptions extends BoundedReadingOptions {
  pending: PendingRequests;
  /** A POST's own stream: it answers only that POST's requests, and ends once they are answered. */
  exclusive: boolean;
  /**
   * Called once when the stream ended (closed, or broken off: a server that died), unless it was
   * ended early because an oversize answer left it nothing to owe; what is still owed is in
   * `pending`. `resumable`: the server gave its events ids, so a client may ask for the rest with
   * Last-Event-ID.
   */
  onEnd?: (ending: { broken: boolean; resumable: boolean }) => void;
}

/** Field values other than data are kept up to this size (ids, event types, retry times). */
const MAXIMUM_FIELD_BYTES = 256;
const MAXIMUM_NAME_LENGTH = 16;
const NEWLINE = Buffer.from('\n');

export function boundEventStream(body: ReadableStream<Uint8Array>, options: EventStreamOptions): ReadableStream<Uint8Array> {
  const upstream = body.getReader();
  let output: Buffer[] = [];
  /** Set once an exclusive stream has nothing left to answer: reading it further is wasted. */
  let finished = false;

  // The event being read.
  let raw = new BoundedBytes(options.maxResultBytes);
  let data = new ByteWindow();
  let dataLines = 0;
  let eventType = '';
  let eventId: string | undefined;
  let settled = false;
  /** An event carried an id: the server keeps its events, and the stream may be resumed. */
  let resumable = false;
  let ended = false;
  const end = (broken: boolean) => {
    if (ended) return;
    ended = true;
    options.onEnd?.({ broken, resumable });
  };
  // The line being read: its field name until the colon, then its value.
  let lineBytes = 0;
  let name = '';
  let inValue = false;
  let skipSpace = false;
  let value: Buffer[] = [];
  let valueBytes = 0;

  const splitter = splitLines('sse', {
    segment(bytes) {
      lineBytes += bytes.length;
      readField(bytes);
      if (raw.add(bytes)) judge(false);
    },
    lineEnd() {
      if (lineBytes === 0) {
        endEvent();
        return;
      }
      if (raw.add(NEWLINE)) judge(false);
      endField();
      lineBytes = 0;
    },
  });

  function readField(bytes: Buffer): void {
    let start = 0;
    if (!inValue) {
      const colon = bytes.indexOf(0x3a);
      const end = colon === -1 ? bytes.length : colon;
      // Only short names matter (data, event, id); a comment line has an empty name.
      if (name.length < MAXIMUM_NAME_LENGTH) name += bytes.toString('latin1', 0, Math.min(end, MAXIMUM_NAME_LENGTH - name.length));
      if (colon === -1) return;
      inValue = true;
      skipSpace = true;
      start = colon + 1;
    }
    if (skipSpace && start < bytes.length) {
      skipSpace = false;
      if (bytes[start] === 0x20) start++;
    }
    if (start >= bytes.length) return;
    const piece = bytes.subarray(start);
    if (name === 'data') {
      if (valueBytes === 0 && dataLines > 0) data.add(NEWLINE);
      data.add(piece);
    } else if (valueBytes < MAXIMUM_FIELD_BYTES) {
      value.push(Buffer.from(piece.subarray(0, MAXIMUM_FIELD_BYTES - valueBytes)));
    }
    valueBytes += piece.length;
  }

  function endField(): void {
    const text = Buffer.concat(value).toString('utf8');
    if (name === 'data') {
      if (valueBytes === 0 && dataLines > 0) data.add(NEWLINE);
      dataLines++;
    } else if (name === 'event') {
      eventType = text;
    } else if (name === 'id' && valueBytes <= MAXIMUM_FIELD_BYTES) {
      eventId = text;
      if (text !== '') resumable = true;
    }
    name = '';
    inValue = false;
    skipSpace = false;
    value = [];
    valueBytes = 0;
  }

  function endEvent(): void {
    if (raw.overflowed) {
      if (!settled) judge(true);
    } else if (raw.bytes > 0) {
      output.push(raw.whole(), NEWLINE);
      // A response passing through answers its request, which can then no longer be blamed for a cut.
      const answered = isMessage() ? answeredRequest(data) : undefined;
      if (answered !== undefined) options.pending.settle(answered);
    }
    raw = new BoundedBytes(options.maxResultBytes);
    data = new ByteWindow();
    dataLines = 0;
    eventType = '';
    eventId = undefined;
    settled = false;
  }

  function isMessage(): boolean {
    return dataLines > 0 && (eventType === '' || eventType === 'message');
  }

  function judge(ended: boolean): void {
    const typed = eventType === '' || eventType === 'message';
    if (!ended && !typed) return;
    if (ended && !isMessage()) {
      settled = true;
      reportDropped(options, raw.bytes, { drop: 'an event that carries no JSON-RPC message' });
      return;
    }
    const verdict = judgeOversize({
      window: data,
      ended,
      pending: options.pending,
      exclusive: options.exclusive,
      maxResultBytes: options.maxResultBytes,
    });
    if ('wait' in verdict) return;
    settled = true;
    if ('answer' in verdict) {
      const id = eventId === undefined ? '' : `id: ${eventId}\n`;
      output.push(Buffer.from(`event: message\n${id}data: ${JSON.stringify(verdict.answer)}\n\n`));
      if (options.exclusive && options.pending.size === 0) finished = true;
    }
    reportDropped(options, raw.bytes, verdict);
  }

  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      while (output.length === 0 && !finished) {
        let read: Awaited<ReturnType<typeof upstream.read>>;
        try {
          read = await upstream.read();
        } catch (error) {
          end(true);
          throw error;
        }
        if (read.done) {
          end(false);
          break;
        }
        const chunk = read.value;
        splitter.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      }
      for (const bytes of output) controller.enqueue(bytes);
      const flushed = output.length > 0;
      output = [];
      if (finished) {
        await upstream.cancel().catch(() => undefined);
        controller.close();
      } else if (!flushed) {
        controller.close();
      }
    },
    cancel(reason) {
      return upstream.cancel(reason);
    },
  });
}
