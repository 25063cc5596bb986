/**
 * What the first and last bytes of a JSON-RPC message say about it, without its middle: the
 * top-level members with plain values (string, number, true, false, null) that come before the
 * first member holding an object or array, and those after the last one.
 *
 *   {"jsonrpc":"2.0","id":5,"result":{ … 20 MB … }}     Python SDK order: the id is in the head
 *   {"result":{ … 20 MB … },"jsonrpc":"2.0","id":5}     TypeScript SDK order: the id is in the tail
 *
 * Reading only up to the first nested value is what makes this sound. From the head it is plain
 * parsing. From the tail, `,"id":5}` is a top-level member only because the message ends right
 * there: an `"id"` inside `result` would be followed by at least one more `}`. A string cannot fake
 * it either: the pattern needs real (unescaped) quotes around the key, and a string value matched
 * up to the end of the message must close with the message's last quote.
 */
interface Envelope {
  /** Plain top-level members found at either end (the head wins when both have one). */
  members: Map<string, unknown>;
  /** The key of the first member with an object or array value, when the head reaches it. */
  firstNested: string | undefined;
}

const PLAIN_VALUE = String.raw`"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null`;
const HEAD_OPEN = /^\uFEFF?\s*\{\s*/y;
const HEAD_KEY = /"([^"\\]*)"\s*:\s*/y;
const HEAD_VALUE = new RegExp(`(${PLAIN_VALUE})\\s*(,|\\})\\s*`, 'y');
const TAIL_CLOSE = /\}\s*$/;
const TAIL_MEMBER = new RegExp(`[{,]\\s*"([^"\\\\]*)"\\s*:\\s*(${PLAIN_VALUE})\\s*$`);

export function readEnvelope(head: string, tail: string | undefined): Envelope {
  const members = tail === undefined ? new Map<string, unknown>() : readTail(tail);
  const { members: headMembers, firstNested } = readHead(head);
  for (const [key, value] of headMembers) members.set(key, value);
  return { members, firstNested };
}

function readHead(head: string): { members: Map<string, unknown>; firstNested: string | undefined } {
  const members = new Map<string, unknown>();
  HEAD_OPEN.lastIndex = 0;
  if (!HEAD_OPEN.test(head)) return { members, firstNested: undefined };
  let position = HEAD_OPEN.lastIndex;
  while (position < head.length) {
    HEAD_KEY.lastIndex = position;
    const key = HEAD_KEY.exec(head);
    if (!key) break;
    position = HEAD_KEY.lastIndex;
    const next = head[position];
    if (next === '{' || next === '[') return { members, firstNested: key[1]! };
    HEAD_VALUE.lastIndex = position;
    const value = HEAD_VALUE.exec(head);
    if (!value) break;
    members.set(key[1]!, JSON.parse(value[1]!));
    if (value[2] === '}') break;
    position = HEAD_VALUE.lastIndex;
  }
  return { members, firstNested: undefined };
}

function readTail(tail: string): Map<string, unknown> {
  const members = new Map<string, unknown>();
  const close = TAIL_CLOSE.exec(tail);
  if (!close) return members;
  let rest = tail.slice(0, close.index);
  for (let member = TAIL_MEMBER.exec(rest); member; member = TAIL_MEMBER.exec(rest)) {
    members.set(member[1]!, JSON.parse(member[2]!));
    // A `{` separator opened the message: no member before it. A `,` ends the previous member.
    if (rest[member.index] === '{') break;
    rest = rest.slice(0, member.index);
  }
  return members;
}
