/**
 * A judge model grades an answer against the case's criteria, from 0 to 1. It sees what a
 * reviewer would: the questions, the calls the agent made and their outcomes, and the answer; and
 * it replies with JSON, read leniently (a ```json block or text around it is fine).
 */
import { errorMessage } from '../core/errors.ts';
import { isJsonObject } from '../core/json.ts';
import type { ModelClient } from '../core/ports/model.ts';
import type { ToolCallRecord } from '../core/turn.ts';
import { jsonOf } from './checks.ts';
import { shown } from './matcher.ts';

export const JUDGE_SYSTEM_PROMPT = `You grade the answer of an AI assistant that uses tools. You are given the user's question, the tool calls the assistant made with the results it got, its answer, and the criteria a good answer meets.
Grade how well the answer meets the criteria, from 0 (not at all) to 1 (fully). Judge only against the criteria; do not reward length or style they do not ask for.
Reply with JSON only: {"score": <a number from 0 to 1>, "reason": "<one or two sentences>"}`;

/** A call as the judge sees it: with the result the model saw, when the turn's stored messages have it. */
export type JudgedCall = Pick<ToolCallRecord, 'name' | 'arguments' | 'ok'> & { result?: string };

export interface JudgeInput {
  /** The questions of the conversation so far, this turn's last. */
  questions: string[];
  toolCalls: JudgedCall[];
  reply: string;
  criteria: string;
}

export type Grade = { kind: 'graded'; score: number; reason: string } | { kind: 'unusable'; message: string };

const JUDGE_TIMEOUT_MS = 120_000;

export async function grade(model: ModelClient, input: JudgeInput): Promise<Grade> {
  let content: string | null;
  try {
    ({ content } = await model.complete({ messages: [{ role: 'system', content: JUDGE_SYSTEM_PROMPT }, { role: 'user', content: judgeRequest(input) }], tools: [], timeoutMs: JUDGE_TIMEOUT_MS }));
  } catch (error) {
    return { kind: 'unusable', message: `the judge model failed: ${errorMessage(error)}` };
  }
  return readGrade(content ?? '');
}

export function judgeRequest(input: JudgeInput): string {
  const earlier = input.questions.slice(0, -1);
  const calls = input.toolCalls.map((call) => `- ${call.name}(${shown(call.arguments)}): ${call.ok ? 'succeeded' : 'failed'}${call.result === undefined ? '' : `\n  result: ${cut(call.result)}`}`);
  return [
    ...(earlier.length > 0 ? ['## Earlier questions in this conversation', ...earlier.map((question) => `- ${question}`), ''] : []),
    '## Question',
    input.questions.at(-1) ?? '',
    '',
    '## Tool calls',
    ...(calls.length > 0 ? calls : ['(none)']),
    '',
    '## Answer',
    input.reply,
    '',
    '## Criteria',
    input.criteria,
  ].join('\n');
}

/** Long tool results are cut: the judge needs their substance, not a whole document per call. */
const MAX_RESULT_CHARS = 4_000;
const cut = (text: string) => (text.length > MAX_RESULT_CHARS ? `${text.slice(0, MAX_RESULT_CHARS)}… (${text.length - MAX_RESULT_CHARS} more characters)` : text);

/** The judge's reply as a grade: `{"score", "reason"}`, the score a number from 0 to 1. */
export function readGrade(text: string): Grade {
  const object = jsonOf(text) ?? jsonOf(/\{[\s\S]*\}/.exec(text)?.[0] ?? '');
  const value = object?.parsed;
  if (!isJsonObject(value) || typeof value['score'] !== 'number' || value['score'] < 0 || value['score'] > 1) {
    return { kind: 'unusable', message: `the judge did not reply with {"score": 0..1, "reason": "..."}: ${shown(text)}` };
  }
  return { kind: 'graded', score: value['score'], reason: typeof value['reason'] === 'string' ? value['reason'] : '' };
}
