/**
 * The checks of one turn, each a small pure function of what the turn did: a failure says what was
 * expected and what happened, in one line a person reads in a CI log.
 */
import type { ToolCallRecord, TurnResult } from '../core/turn.ts';
import { mismatch, shown } from './matcher.ts';
import type { Expectations } from './suite-schema.ts';

export type CheckKind = 'called' | 'not_called' | 'arguments' | 'stop_reason' | 'tools_succeeded' | 'reply' | 'json' | 'approval' | 'judge' | 'error';

export interface CheckFailure {
  kind: CheckKind;
  message: string;
}

/** What a turn did: its last result, and every call it made (those before a pause included). */
export interface TurnOutcome {
  result: TurnResult;
  toolCalls: ToolCallRecord[];
}

/** Every check the expectations name but the judge's (which calls a model: lib/evals/judge.ts). */
export function checkTurn(expect: Expectations, outcome: TurnOutcome): CheckFailure[] {
  return [
    ...checkCalled(expect, outcome.toolCalls),
    ...checkArguments(expect, outcome.toolCalls),
    ...checkStopReason(expect, outcome.result),
    ...checkToolsSucceeded(expect, outcome.toolCalls),
    ...checkReply(expect, outcome.result.reply),
    ...checkJson(expect, outcome.result.reply),
  ];
}

const calledNames = (calls: ToolCallRecord[]) => [...new Set(calls.map((call) => call.name))];
const namesText = (calls: ToolCallRecord[]) => (calls.length === 0 ? 'no tool was called' : `called: ${calledNames(calls).join(', ')}`);

function checkCalled(expect: Expectations, calls: ToolCallRecord[]): CheckFailure[] {
  const names = new Set(calls.map((call) => call.name));
  return [
    ...(expect.called ?? []).filter((tool) => !names.has(tool)).map((tool): CheckFailure => ({ kind: 'called', message: `expected a call of ${tool}; ${namesText(calls)}` })),
    ...(expect.notCalled ?? []).filter((tool) => names.has(tool)).map((tool): CheckFailure => ({
      kind: 'not_called',
      message: `expected no call of ${tool}; it was called with ${calls.filter((call) => call.name === tool).map((call) => shown(call.arguments)).join(', ')}`,
    })),
  ];
}

function checkArguments(expect: Expectations, calls: ToolCallRecord[]): CheckFailure[] {
  return (expect.arguments ?? []).flatMap(({ tool, match, calls: which }): CheckFailure[] => {
    const ofTool = calls.filter((call) => call.name === tool);
    if (ofTool.length === 0) return [{ kind: 'arguments', message: `expected a call of ${tool} with arguments matching ${shown(match)}; ${namesText(calls)}` }];
    const problems = ofTool.map((call) => mismatch(match, call.arguments));
    const failing = problems.filter((problem) => problem !== undefined);
    const passes = which === 'every' ? failing.length === 0 : failing.length < problems.length;
    if (passes) return [];
    return [{ kind: 'arguments', message: `${which === 'every' ? 'every' : 'a'} call of ${tool} should match ${shown(match)}: ${failing.join('; ')}` }];
  });
}

function checkStopReason(expect: Expectations, result: TurnResult): CheckFailure[] {
  const expected = expect.stopReason ?? 'completed';
  if (result.stopReason === expected) return [];
  const why = result.error ? ` (${result.error.code}: ${result.error.message})` : result.pendingApprovals?.length ? ` (waiting for approval of ${result.pendingApprovals.map((call) => call.name).join(', ')})` : '';
  return [{ kind: 'stop_reason', message: `expected the turn to stop with ${expected}, it stopped with ${result.stopReason}${why}` }];
}

function checkToolsSucceeded(expect: Expectations, calls: ToolCallRecord[]): CheckFailure[] {
  if (expect.toolsSucceeded === undefined) return [];
  const failed = calls.filter((call) => !call.ok);
  if (expect.toolsSucceeded && failed.length > 0) return [{ kind: 'tools_succeeded', message: `expected every call to succeed; failed: ${failed.map((call) => `${call.name} ${shown(call.arguments)}`).join(', ')}` }];
  if (!expect.toolsSucceeded && failed.length === 0) return [{ kind: 'tools_succeeded', message: `expected a call to fail; ${calls.length === 0 ? 'no tool was called' : 'every call succeeded'}` }];
  return [];
}

const texts = (value: string | string[] | undefined) => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

function checkReply(expect: Expectations, reply: string): CheckFailure[] {
  const rule = expect.reply;
  if (!rule) return [];
  const fold = (text: string) => (rule.ignoreCase ? text.toLowerCase() : text);
  const failures: CheckFailure[] = [];
  const fail = (message: string) => failures.push({ kind: 'reply', message: `${message}; the answer: ${shown(reply)}` });
  const missing = texts(rule.contains).filter((text) => !fold(reply).includes(fold(text)));
  if (missing.length > 0) fail(`expected the answer to contain ${missing.map((text) => shown(text)).join(', ')}`);
  const present = texts(rule.notContains).filter((text) => fold(reply).includes(fold(text)));
  if (present.length > 0) fail(`expected the answer not to contain ${present.map((text) => shown(text)).join(', ')}`);
  if (rule.matches !== undefined && !new RegExp(rule.matches).test(reply)) fail(`expected the answer to match /${rule.matches}/`);
  if (rule.equals !== undefined && fold(reply) !== fold(rule.equals)) fail(`expected the answer to be ${shown(rule.equals)}`);
  return failures;
}

function checkJson(expect: Expectations, reply: string): CheckFailure[] {
  if (expect.json === undefined) return [];
  const value = jsonOf(reply);
  if (value === undefined) return [{ kind: 'json', message: `expected the answer to be JSON (alone or in a \`\`\`json block); the answer: ${shown(reply)}` }];
  const problem = mismatch(expect.json, value.parsed);
  return problem ? [{ kind: 'json', message: `the answer's JSON does not match: ${problem}` }] : [];
}

const FENCED_JSON = /```(?:json)?\s*\n([\s\S]*?)\n?```/;

/** The answer as JSON: the whole text, else its first fenced block. */
export function jsonOf(text: string): { parsed: unknown } | undefined {
  for (const candidate of [text.trim(), FENCED_JSON.exec(text)?.[1]?.trim()]) {
    if (!candidate) continue;
    try {
      return { parsed: JSON.parse(candidate) as unknown };
    } catch {
      // Not this one.
    }
  }
  return undefined;
}
