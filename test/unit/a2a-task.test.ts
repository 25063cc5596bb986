/**
 * A paused turn as an A2A task's status: the words say what waits and how to answer it, so a person
 * reading the status (or another agent passing it on) can act without the data part.
 */
import { TaskState } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import type { TurnResult } from '../../lib/core/turn.ts';
import { statusOfResult } from '../../lib/front-doors/a2a/task.ts';

const paused = (overrides: Partial<TurnResult>): TurnResult => ({
  conversationId: 'c1', turn: 1, reply: 'A tool needs your answer.', stopReason: 'input_required', rounds: 1, toolCalls: [], usage: { promptTokens: 10, completionTokens: 2 }, ...overrides,
});

const textOf = (result: TurnResult) => {
  const status = statusOfResult(result, new Date('2026-11-26T00:00:00Z'));
  expect(status.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
  return status.message!.parts.map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join('');
};

describe('an input-required task status', () => {
  it('names the page a question asks the user to open', () => {
    const url = 'https://login.example/authorize?state=s1';
    const text = textOf(paused({ pendingElicitations: [{ toolCallId: 'call_1', name: 'crm_lookup', server: 'crm', message: 'Connect your CRM account.', requestedSchema: {}, mode: 'url', url, elicitationId: 'e1' }] }));
    expect(text).toContain('Connect your CRM account.');
    expect(text).toContain(`open ${url}`);
    expect(text).toContain('call id call_1');
  });

  it('says nothing of a page for a question that is a form', () => {
    const text = textOf(paused({ pendingElicitations: [{ toolCallId: 'call_1', name: 'book', server: 'demo', message: 'Which date?', requestedSchema: { type: 'object', properties: { date: { type: 'string' } } } }] }));
    expect(text).toContain('Waiting for an answer: Which date? (book, call id call_1)');
    expect(text).not.toContain('open ');
  });
});
