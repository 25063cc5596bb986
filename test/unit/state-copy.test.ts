import { describe, expect, it } from 'vitest';
import { copyJson, copyState, freezeJson, freezeObjects } from '../../lib/core/state-copy.ts';
import { emptyTrace, TraceBook } from '../../lib/extensions/trace/book.ts';
import type { TraceMessage } from '../../lib/core/turn-trace.ts';

describe('the copy of the conversation state a record stores', () => {
  it('copies what an extension may still change, and shares a frozen snapshot', () => {
    const live = { todo: { items: ['a'] }, trace: freezeObjects({ rounds: [{ round: 1 }] }) };
    const copy = copyState(live);
    live.todo.items.push('b');
    expect(copy.todo).toEqual({ items: ['a'] });
    expect(copy.trace).toBe(live.trace);
  });
});

describe('a trace snapshot', () => {
  const round = (number: number) => ({ round: number, startedAt: new Date(0).toISOString(), durationMs: 1, request: { messages: [{ role: 'user' as const, content: `question ${number}` }], tools: [] }, response: { role: 'assistant' as const, content: 'answer' } });

  it('stays as it was taken while the book goes on, and cannot be changed', () => {
    const book = new TraceBook({ ...emptyTrace(1, 'full'), rounds: [{ round: 0, startedAt: new Date(0).toISOString(), durationMs: 1 }] });
    book.addRound(round(book.nextRound()));
    const first = book.snapshot();
    book.addRound(round(book.nextRound()));
    book.addToolRun({ id: 'call_1', name: 'add', ok: true, durationMs: 1 });

    expect(first.rounds).toHaveLength(2);
    expect(first.messages).toHaveLength(1);
    expect(first.toolCalls).toHaveLength(0);
    expect(book.snapshot().rounds).toHaveLength(3);
    for (const part of [first, first.rounds[0], first.rounds[1]!.request, first.messages[0]]) expect(Object.isFrozen(part)).toBe(true);
    expect(structuredClone(first)).toEqual(first);
  });

  it('freezes its objects but not its arrays, which would take JSON.stringify off its fast path for the whole trace', () => {
    const book = new TraceBook(emptyTrace(1, 'full'));
    book.addRound({ ...round(book.nextRound()), response: { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'add', arguments: '{}' } }] } });
    const snapshot = book.snapshot();

    const response = snapshot.rounds[0]!.response as Extract<TraceMessage, { role: 'assistant' }>;

    const arrays = [snapshot.rounds, snapshot.messages, snapshot.tools, snapshot.toolCalls, snapshot.rounds[0]!.request!.messages, response.tool_calls!];
    for (const list of arrays) expect(Object.isFrozen(list) || !Object.isExtensible(list)).toBe(false);
    for (const part of [response, response.tool_calls![0]!, response.tool_calls![0]!.function]) expect(Object.isFrozen(part)).toBe(true);
  });
});

describe('copyJson', () => {
  it('copies a JSON value all the way down, keeping keys whose value is undefined', () => {
    const value = { messages: [{ role: 'user', content: 'hi', parts: [1, null, true, { deep: ['x'] }] }], result: { text: undefined as string | undefined } };
    const copy = copyJson(value);

    expect(copy).toStrictEqual(value);
    expect(Object.keys(copy.result)).toEqual(['text']);
    value.messages[0]!.parts.push(2);
    (value.messages[0]!.parts[3] as { deep: string[] }).deep.push('y');
    value.messages[0]!.content = 'changed';
    expect(copy).toStrictEqual({ messages: [{ role: 'user', content: 'hi', parts: [1, null, true, { deep: ['x'] }] }], result: { text: undefined } });
  });
});

describe('freezeJson', () => {
  it('freezes a JSON value all the way down, arrays too, and passes over what is frozen at its top', () => {
    const message = { role: 'assistant', toolCalls: [{ id: 'c1', arguments: '{}' }], data: { list: [[1]] } };
    const kept = Object.freeze({ items: [{ open: true }] });

    expect(freezeJson(message)).toBe(message);
    freezeJson(kept);

    for (const part of [message, message.toolCalls, message.toolCalls[0], message.data, message.data.list, message.data.list[0]]) expect(Object.isFrozen(part)).toBe(true);
    expect(() => message.toolCalls.push({ id: 'c2', arguments: '{}' })).toThrow(TypeError);
    expect(Object.isFrozen(kept.items)).toBe(false);
  });
});
