/**
 * A message over `tools.maxResultBytes` is dropped as it arrives; this decides whom to tell. The
 * client gets a JSON-RPC error in place of the response, for the request it answered, so only that
 * call fails and the session goes on. Shared by the stdio, Streamable HTTP and SSE readers.
 *
 * Which request: the id read from the message's head or tail (envelope.ts), if that request is
 * waiting. Failing that, the only waiting request, when exactly one is. Otherwise the message is
 * dropped and logged; its call then ends with its timeout. Requests and notifications from the
 * server are dropped: nobody waits for them.
 */
import type { JSONRPCErrorResponse, RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { ByteWindow } from './bytes.ts';
import { readEnvelope } from './envelope.ts';
import type { PendingRequests } from './pending.ts';

/** In the JSON-RPC range for implementation-defined server errors; mapped in call-tool.ts. */
export const RESULT_TOO_LARGE = -32099;

export interface ResultTooLargeData {
  maxResultBytes: number;
  receivedBytes: number;
}

export function resultTooLarge(id: RequestId, data: ResultTooLargeData): JSONRPCErrorResponse {
  return {
    jsonrpc: '2.0',
    id,
    error: {
      code: RESULT_TOO_LARGE,
      message: `the response was larger than ${data.maxResultBytes} bytes (tools.maxResultBytes) and was cut off while it arrived`,
      data,
    },
  };
}

export type Verdict =
  /** Deliver this error; the rest of the message is discarded. */
  | { answer: JSONRPCErrorResponse }
  /** Deliver nothing: the reason is for the log. */
  | { drop: string }
  /** Not known yet: ask again when the message has ended (its tail is then known). */
  | { wait: true };

interface OversizeMessage {
  window: ByteWindow;
  /** False at the moment it passed the limit, true once it has ended. */
  ended: boolean;
  /** The requests it may answer. */
  pending: PendingRequests;
  /**
   * True when the stream carries nothing but answers to these requests (a POST's own response):
   * then a response with no readable id is known to be theirs as soon as it is cut.
   */
  exclusive: boolean;
  maxResultBytes: number;
}

export function judgeOversize(message: OversizeMessage): Verdict {
  const { window, ended, pending } = message;
  const { members, firstNested } = readEnvelope(window.head, ended ? window.tail : undefined);
  if (members.has('method') || firstNested === 'params') return { drop: 'a request or notification from the server' };
  const isResponse = firstNested === 'result' || firstNested === 'error';
  const id = members.get('id');
  const answer = (to: RequestId): Verdict => {
    pending.settle(to);
    return { answer: resultTooLarge(to, { maxResultBytes: message.maxResultBytes, receivedBytes: window.bytes }) };
  };
  if (id !== undefined && (isResponse || ended)) {
    return pending.has(id) ? answer(id) : { drop: 'a response to no waiting request' };
  }
  const only = pending.only();
  if (isResponse && message.exclusive && only !== undefined) return answer(only);
  if (!ended) return { wait: true };
  if (only !== undefined) return answer(only);
  return { drop: pending.size === 0 ? 'no request was waiting' : 'its request id could not be read' };
}

/** The request a message that passed whole answers, if it is a response whose id can be read. */
export function answeredRequest(window: ByteWindow): RequestId | undefined {
  const { members, firstNested } = readEnvelope(window.head, window.tail);
  if (members.has('method') || firstNested === 'params') return undefined;
  const id = members.get('id');
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}
