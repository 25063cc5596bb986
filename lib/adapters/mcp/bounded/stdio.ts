/**
 * The SDK's stdio client transport, reading the server's stdout through a bounded line reader.
 *
 * The SDK's own `ReadBuffer` holds a line whole until its newline, and past 10 MB throws, which
 * closes the transport and so the whole session. Here a line over `maxResultBytes` is dropped as
 * it streams (only its first and last bytes are kept) and the client receives an error response
 * for the request it answered instead (oversize.ts): the server keeps its session and process.
 *
 * The SDK reads through `this._readBuffer` (append, readMessage, clear); replacing that one
 * object is the whole change, and the constructor checks it is still there, so an SDK update that
 * moves it fails loudly at connect rather than silently unbounded.
 */
import { StdioClientTransport, type StdioServerParameters } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ReadBuffer } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { JSONRPCMessage, JSONRPCResponse } from '@modelcontextprotocol/sdk/types.js';
import { BoundedBytes } from './bytes.ts';
import { readJsonRpcLine } from './json-rpc-line.ts';
import { splitLines, type LineSplitter } from './lines.ts';
import { judgeOversize } from './oversize.ts';
import { PendingRequests } from './pending.ts';
import { reportDropped, type BoundedReadingOptions } from './reading.ts';

export class BoundedStdioClientTransport extends StdioClientTransport {
  private readonly pending = new PendingRequests();

  constructor(parameters: StdioServerParameters, options: BoundedReadingOptions) {
    super(parameters);
    const original: unknown = Reflect.get(this, '_readBuffer');
    if (!(original instanceof ReadBuffer)) {
      throw new Error('this MCP SDK version no longer reads stdio through _readBuffer; the bounded reader needs updating');
    }
    Reflect.set(this, '_readBuffer', new BoundedReadBuffer(this.pending, options));
  }

  override send(message: JSONRPCMessage): Promise<void> {
    this.pending.sent(message);
    return super.send(message);
  }
}

type Entry = { message: JSONRPCMessage } | { error: unknown };

/** Stands in for the SDK's ReadBuffer: the same three methods, bounded lines. */
class BoundedReadBuffer {
  private readonly pending: PendingRequests;
  private readonly options: BoundedReadingOptions;
  private ready: Entry[] = [];
  private line: BoundedBytes;
  private splitter: LineSplitter;
  /** The line being dropped has already been answered for (or found to need no answer). */
  private settled = false;

  constructor(pending: PendingRequests, options: BoundedReadingOptions) {
    this.pending = pending;
    this.options = options;
    this.line = new BoundedBytes(options.maxResultBytes);
    this.splitter = this.createSplitter();
  }

  append(chunk: Buffer): void {
    this.splitter.push(chunk);
  }

  /** The SDK calls this until it gets null; an error is reported and reading goes on. */
  readMessage(): JSONRPCMessage | null {
    const entry = this.ready.shift();
    if (!entry) return null;
    if ('error' in entry) throw entry.error;
    return entry.message;
  }

  clear(): void {
    this.ready = [];
    this.line = new BoundedBytes(this.options.maxResultBytes);
    this.splitter = this.createSplitter();
    this.settled = false;
    this.pending.clear();
  }

  private createSplitter(): LineSplitter {
    return splitLines('lf', {
      segment: (bytes) => {
        if (this.line.add(bytes)) this.judge(false);
      },
      lineEnd: () => {
        if (this.line.overflowed) {
          if (!this.settled) this.judge(true);
        } else if (this.line.bytes > 0) {
          this.parse(this.line.whole());
        }
        this.line = new BoundedBytes(this.options.maxResultBytes);
        this.settled = false;
      },
    });
  }

  private parse(bytes: Buffer): void {
    try {
      const message = readJsonRpcLine(bytes.toString('utf8'));
      if (isResponse(message) && message.id !== undefined) this.pending.settle(message.id);
      this.ready.push({ message });
    } catch (error) {
      this.ready.push({ error });
    }
  }

  private judge(ended: boolean): void {
    const verdict = judgeOversize({
      window: this.line.window,
      ended,
      pending: this.pending,
      exclusive: false,
      maxResultBytes: this.options.maxResultBytes,
    });
    if ('wait' in verdict) return;
    this.settled = true;
    if ('answer' in verdict) this.ready.push({ message: verdict.answer });
    reportDropped(this.options, this.line.window.bytes, verdict);
  }
}

function isResponse(message: JSONRPCMessage): message is JSONRPCResponse {
  return !('method' in message) && 'id' in message && ('result' in message || 'error' in message);
}
