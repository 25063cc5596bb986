import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { describe, expect, it } from 'vitest';
import { acceptsEventStream, encodeComment, encodeEvent, encodeJsonEvent, EVENT_STREAM_HEADERS } from '../../lib/http/sse.ts';

/** What a spec-following client (eventsource-parser) makes of the text. */
function parse(text: string) {
  const events: EventSourceMessage[] = [];
  const comments: string[] = [];
  const parser = createParser({ onEvent: (event) => events.push(event), onComment: (comment) => comments.push(comment) });
  parser.feed(text);
  return { events, comments };
}

describe('encodeEvent', () => {
  it('frames an event as event, id and data lines ended by a blank line', () => {
    expect(encodeEvent({ event: 'round-start', id: 1, data: '{"round":1}' })).toBe('event: round-start\nid: 1\ndata: {"round":1}\n\n');
  });

  it('leaves the id out when there is none', () => {
    expect(encodeEvent({ event: 'turn-end', data: '{}' })).toBe('event: turn-end\ndata: {}\n\n');
  });

  it.each([
    ['LF', 'first\nsecond'],
    ['CRLF', 'first\r\nsecond'],
    ['CR', 'first\rsecond'],
  ])('splits data with %s line breaks into data lines, so the event cannot end early', (_, data) => {
    const text = encodeEvent({ event: 'note', id: 7, data: `${data}\n\nevent: forged` });
    expect(text).toBe('event: note\nid: 7\ndata: first\ndata: second\ndata: \ndata: event: forged\n\n');
    expect(parse(text).events).toEqual([{ event: 'note', id: '7', data: 'first\nsecond\n\nevent: forged' }]);
  });

  it.each([
    ['an event name', { event: 'tool\nresult', data: '' }],
    ['an id', { event: 'tool-result', id: '1\r2', data: '' }],
    ['an id with NUL', { event: 'tool-result', id: '1\u00002', data: '' }],
  ])('refuses a line break in %s, which would split the event', (_, event) => {
    expect(() => encodeEvent(event)).toThrow(/must be one line/);
  });
});

describe('encodeJsonEvent', () => {
  it('writes the value as one line of JSON that a client reads back whole', () => {
    const value = { reply: 'line one\nline two\r\n\u2028done', nested: { ok: true } };
    const text = encodeJsonEvent('turn-end', 3, value);
    expect(text.split('\n').filter((line) => line.startsWith('data:'))).toHaveLength(1);
    const [event] = parse(text).events;
    expect(event).toMatchObject({ event: 'turn-end', id: '3' });
    expect(JSON.parse(event!.data)).toEqual(value);
  });
});

describe('encodeComment', () => {
  it('writes a comment line that clients ignore, as a chunk of its own', () => {
    expect(encodeComment('heartbeat')).toBe(': heartbeat\n\n');
    expect(parse(encodeComment('heartbeat') + encodeJsonEvent('round-start', 1, { round: 1 }))).toEqual({
      comments: ['heartbeat'],
      events: [{ event: 'round-start', id: '1', data: '{"round":1}' }],
    });
  });

  it('keeps every line of a multi-line comment a comment', () => {
    expect(encodeComment('one\ntwo')).toBe(': one\n: two\n\n');
    expect(parse(encodeComment('one\ndata: forged'))).toEqual({ comments: ['one', 'data: forged'], events: [] });
  });
});

describe('acceptsEventStream', () => {
  it.each([
    ['text/event-stream', true],
    ['Text/Event-Stream', true],
    ['application/json, text/event-stream;q=0.9', true],
    ['text/event-stream; charset=utf-8', true],
    ['text/event-stream;q=0', false],
    ['text/event-stream; q=0.0, application/json', false],
    ['application/json', false],
    ['*/*', false],
    ['text/*', false],
    ['', false],
    [undefined, false],
  ])('says %j asks for events: %s', (accept, expected) => {
    expect(acceptsEventStream(accept)).toBe(expected);
  });
});

describe('EVENT_STREAM_HEADERS', () => {
  it('declares UTF-8 SSE and turns off caching and proxy buffering', () => {
    expect(EVENT_STREAM_HEADERS).toEqual({ 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
  });
});
