import { createHash } from 'node:crypto';
import { InputError } from '../../core/errors.ts';

/**
 * The id of a turn's event: which conversation, which turn, which request's turn (a tag), and where
 * in the turn the event stands. A client sends the last one back as `Last-Event-ID` to resume the
 * turn's stream after it, on any route, with no conversation in the path needed:
 *
 *   sse-e2e:1:h3Fq2a:round-2          round 2 started
 *   sse-e2e:1:h3Fq2a:call-2-1         the first tool call of round 2 (calls in the reply's order)
 *   sse-e2e:1:h3Fq2a:result-2-3       the results of round 2's first three calls have all been sent
 *   sse-e2e:1:h3Fq2a:end              the stream's last event (turn-end or error)
 *
 * Only events that can be rebuilt exactly from the stored turn carry an id; deltas and pauses do
 * not (the last id stays, as the SSE spec says), so what came after the last id comes again.
 * The tag (a short hash of a request id of the turn) tells a turn from another that took its
 * number after the first was given back unstored.
 */
export type StreamPosition =
  | { kind: 'round'; round: number }
  | { kind: 'call'; round: number; index: number }
  | { kind: 'result'; round: number; index: number }
  | { kind: 'end' };

export interface StreamId {
  conversationId: string;
  turn: number;
  tag: string;
  position: StreamPosition;
}

export function formatStreamId(id: StreamId): string {
  return `${id.conversationId}:${id.turn}:${id.tag}:${formatPosition(id.position)}`;
}

function formatPosition(position: StreamPosition): string {
  switch (position.kind) {
    case 'round':
      return `round-${position.round}`;
    case 'call':
    case 'result':
      return `${position.kind}-${position.round}-${position.index}`;
    case 'end':
      return 'end';
  }
}

const NUMBER = '([1-9]\\d{0,5})';
const ID_PATTERN = /^([A-Za-z0-9_-]{1,128}):([1-9]\d{0,14}):([A-Za-z0-9_-]{6}):(.+)$/;
const POSITION_PATTERNS: Array<[RegExp, (numbers: number[]) => StreamPosition]> = [
  [new RegExp(`^round-${NUMBER}$`), ([round]) => ({ kind: 'round', round: round! })],
  [new RegExp(`^call-${NUMBER}-${NUMBER}$`), ([round, index]) => ({ kind: 'call', round: round!, index: index! })],
  [new RegExp(`^result-${NUMBER}-${NUMBER}$`), ([round, index]) => ({ kind: 'result', round: round!, index: index! })],
  [/^end$/, () => ({ kind: 'end' })],
];

/** A Last-Event-ID this service handed out, or 400 invalid_last_event_id saying what one looks like. */
export function parseStreamId(text: string): StreamId {
  const found = ID_PATTERN.exec(text.trim());
  if (found) {
    for (const [pattern, position] of POSITION_PATTERNS) {
      const matched = pattern.exec(found[4]!);
      if (matched) return { conversationId: found[1]!, turn: Number(found[2]), tag: found[3]!, position: position(matched.slice(1).map(Number)) };
    }
  }
  throw new InputError('invalid_last_event_id', `Last-Event-ID ${JSON.stringify(text.slice(0, 200))} is not an event id of this service: send back the "id" of the last event received (like "my-conversation:3:h3Fq2a:call-1-1"), or no Last-Event-ID to start a turn. No turn ran for this request.`);
}

/** Orders positions as a turn's events come: by round; in a round its start, its calls, its results; the end last. */
export function comparePositions(a: StreamPosition, b: StreamPosition): number {
  const rank = (position: StreamPosition): [number, number, number] => {
    switch (position.kind) {
      case 'round':
        return [position.round, 0, 0];
      case 'call':
        return [position.round, 1, position.index];
      case 'result':
        return [position.round, 2, position.index];
      case 'end':
        return [Number.POSITIVE_INFINITY, 0, 0];
    }
  };
  const [left, right] = [rank(a), rank(b)];
  for (let at = 0; at < 3; at++) if (left[at] !== right[at]) return left[at]! < right[at]! ? -1 : 1;
  return 0;
}

/** The tag of a request's turn: six characters of its request id's hash (not a secret, only a name). */
export function requestTag(requestId: string): string {
  return createHash('sha256').update(requestId).digest('base64url').slice(0, 6);
}
