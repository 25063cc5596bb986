/**
 * Server-Sent Events framing (https://html.spec.whatwg.org/multipage/server-sent-events.html), pure.
 *
 *   event: tool-result        the event's name (what an EventSource listens for)
 *   id: 3                     the last id seen is what a client sends back as Last-Event-ID
 *   data: {"round":1,...}     one line per line of data; the client joins them with "\n"
 *   <blank line>              dispatches the event
 *
 *   : heartbeat               a comment: ignored by clients, keeps proxies from closing an idle stream
 *
 *   retry: 1000               how long a client waits before it reconnects (ms)
 */

interface ServerSentEvent {
  event: string;
  id?: string | number;
  /** Text; each line of it becomes its own `data:` line, so no line break can end the event early. */
  data: string;
}

/** The headers of an event-stream response; `x-accel-buffering` stops nginx-style proxies buffering it. */
export const EVENT_STREAM_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
};

/** CRLF, LF and CR all end a line in an event stream. */
const LINE_BREAK = /\r\n|\r|\n/;

/**
 * How long an EventSource waits before it reconnects to a stream that closed. A reconnect names
 * the last event id it saw and resumes the same turn (or gets 204 after its end), so it can be quick.
 */
export const RECONNECT_MS = 1_000;

export function encodeRetry(milliseconds: number): string {
  return `retry: ${Math.round(milliseconds)}\n\n`;
}

export function encodeEvent(event: ServerSentEvent): string {
  const lines = [`event: ${singleLine('event name', event.event)}`];
  if (event.id !== undefined) lines.push(`id: ${singleLine('event id', String(event.id))}`);
  for (const line of event.data.split(LINE_BREAK)) lines.push(`data: ${line}`);
  return lines.join('\n') + '\n\n';
}

/** An event whose data is one line of JSON (JSON.stringify escapes every line break it meets). */
export function encodeJsonEvent(event: string, id: string | number | undefined, value: unknown): string {
  return encodeEvent({ event, ...(id === undefined ? {} : { id }), data: JSON.stringify(value) });
}

/** A comment, one `:` line per line of text, then a blank line so it travels as a chunk of its own. */
export function encodeComment(text: string): string {
  return text.split(LINE_BREAK).map((line) => `: ${line}`).join('\n') + '\n\n';
}

/**
 * Whether an Accept header asks for an event stream (`text/event-stream`, any parameters, not
 * refused with `q=0`). Anything else, including no header, gets JSON.
 */
export function acceptsEventStream(accept: string | undefined): boolean {
  if (!accept) return false;
  return accept.split(',').some((range) => {
    const [type = '', ...parameters] = range.split(';').map((part) => part.trim().toLowerCase());
    const refused = parameters.some((parameter) => /^q=0(\.0*)?$/.test(parameter.replace(/\s+/g, '')));
    return type === 'text/event-stream' && !refused;
  });
}

/** A name or id with a line break in it would split the event in two: that is a bug, not data. */
function singleLine(what: string, value: string): string {
  if (LINE_BREAK.test(value) || value.includes('\0')) throw new Error(`an SSE ${what} must be one line without NUL, got ${JSON.stringify(value)}`);
  return value;
}
