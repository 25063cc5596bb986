/**
 * The shape of an evaluation suite (`npm run eval -- suite.yml`), validated strictly as agent.yml
 * is: an unknown key or a wrong type is an error naming the key's path, never a check silently
 * skipped. A case asks one question (or several, as the turns of one conversation) and says what
 * each turn must show.
 */
// A namespace import, as everywhere in this project (see lib/config/schema.ts).
import * as z from 'zod';
import type { StopReason } from '../core/turn.ts';
import { matcherProblems } from './matcher.ts';

export const STOP_REASONS = ['completed', 'max_rounds', 'deadline', 'error', 'approval_required', 'input_required', 'interrupted', 'budget_exhausted', 'max_tokens', 'content_filtered', 'invalid_output'] as const satisfies readonly StopReason[];
// Fails to compile when lib/core/turn.ts gains a stop reason this list does not have.
const everyStopReason: Exclude<StopReason, (typeof STOP_REASONS)[number]> extends never ? true : never = true;
void everyStopReason;

/** The judge's default pass mark: a grade from 0 to 1. */
export const DEFAULT_JUDGE_THRESHOLD = 0.7;

/** Any JSON value, read as a matcher (lib/evals/matcher.ts); its operators are checked here. */
const matcher = z.unknown().superRefine((value, context) => {
  for (const problem of matcherProblems(value, '')) {
    const [where, ...rest] = problem.split(': ');
    context.addIssue({ code: 'custom', message: `${where ? `at ${where.replace(/^\./, '')}: ` : ''}${rest.join(': ')}` });
  }
});

const toolName = z.string().min(1, 'a tool name must not be empty');
const someTexts = z.union([z.string(), z.array(z.string()).min(1)]);

const replySchema = z.strictObject({
  /** Every text given must appear in the answer. */
  contains: someTexts.optional(),
  /** None of them may. */
  notContains: someTexts.optional(),
  /** A regular expression the answer must match (JavaScript syntax, unanchored). */
  matches: z.string().refine((text) => {
    try {
      new RegExp(text);
      return true;
    } catch {
      return false;
    }
  }, 'not a valid regular expression').optional(),
  equals: z.string().optional(),
  /** contains, notContains and equals ignore case. */
  ignoreCase: z.boolean().default(false),
});

const argumentsSchema = z.strictObject({
  tool: toolName,
  /** The arguments, as a matcher: keys not given may be anything. */
  match: matcher,
  /** `some` (default): one call of the tool must match; `every`: each of its calls must. */
  calls: z.enum(['some', 'every']).default('some'),
});

const judgeCheckSchema = z.strictObject({
  /** What a good answer does, in words the judge model grades against. */
  criteria: z.string().min(1, 'say what a good answer does'),
  /** The lowest grade that passes, from 0 to 1 (default: the suite's judge.threshold, else 0.7). */
  threshold: z.number().min(0).max(1).optional(),
});

const expectationsSchema = z.strictObject({
  /** Tools the turn must call (each at least once), by the name the model sees. */
  called: z.array(toolName).optional(),
  /** Tools the turn must not call. */
  notCalled: z.array(toolName).optional(),
  arguments: z.array(argumentsSchema).optional(),
  /** Default: completed (after any approvals the case gives). */
  stopReason: z.enum(STOP_REASONS).optional(),
  /** Every call the turn made succeeded (true) or some failed (false): a tool error the model saw. */
  toolsSucceeded: z.boolean().optional(),
  reply: replySchema.optional(),
  /** The answer is JSON (alone, or in a ```json block) matching this. */
  json: matcher.optional(),
  judge: judgeCheckSchema.optional(),
});

const approvalSchema = z.strictObject({
  /** The tool whose call the turn must pause for; `*` answers any call. */
  tool: toolName,
  decision: z.enum(['approve', 'decline']),
  /** Told to the model with a decline. */
  reason: z.string().optional(),
});

const turnFields = {
  question: z.string().min(1, 'the question must not be empty'),
  /**
   * When the turn pauses for approval: the decision for each call, by tool. A pause for a tool not
   * listed fails the case, and so does a listed tool the turn never paused for.
   */
  approvals: z.array(approvalSchema).optional(),
  expect: expectationsSchema.prefault({}),
};

const turnSchema = z.strictObject(turnFields);

const caseSchema = z
  .strictObject({
    name: z.string().min(1),
    /** One question; or `turns`, the questions of one conversation in order. */
    question: turnFields.question.optional(),
    approvals: turnFields.approvals,
    expect: expectationsSchema.optional(),
    turns: z.array(turnSchema).min(1).optional(),
    /** Runs of this case (overrides the suite's `repeat`; --repeat overrides both). */
    repeat: z.number().int().min(1).optional(),
    /** The share of runs that must pass for the case to pass (default: the suite's passRate). */
    passRate: z.number().min(0).max(1).optional(),
  })
  .superRefine((value, context) => {
    if ((value.question === undefined) === (value.turns === undefined)) {
      context.addIssue({ code: 'custom', message: 'give either "question" (one turn) or "turns" (a conversation), not both or neither' });
    }
    if (value.turns && (value.expect || value.approvals)) {
      context.addIssue({ code: 'custom', message: 'with "turns", put "expect" and "approvals" in each turn' });
    }
  });

export const suiteSchema = z.strictObject({
  name: z.string().min(1).optional(),
  /** agent.yml to run the cases with, relative to the suite (--config overrides; default AGENT_CONFIG, then agent.yml). */
  config: z.string().min(1).optional(),
  judge: z
    .strictObject({
      /** A `model` block as agent.yml writes it (provider, name, baseURL, apiKey: ${VAR}, ...). */
      model: z.record(z.string(), z.unknown()),
      threshold: z.number().min(0).max(1).default(DEFAULT_JUDGE_THRESHOLD),
    })
    .optional(),
  /** Runs of each case (--repeat overrides). */
  repeat: z.number().int().min(1).default(1),
  /** The share of a case's runs that must pass (default 1: all of them). */
  passRate: z.number().min(0).max(1).default(1),
  cases: z.array(caseSchema).min(1, 'a suite needs at least one case'),
}).superRefine((suite, context) => {
  const seen = new Set<string>();
  suite.cases.forEach((each, index) => {
    if (seen.has(each.name)) context.addIssue({ code: 'custom', path: ['cases', index, 'name'], message: `another case is named "${each.name}": names identify cases in reports` });
    seen.add(each.name);
  });
});

export type SuiteFile = z.output<typeof suiteSchema>;
export type Expectations = z.output<typeof expectationsSchema>;
export type ApprovalAnswer = z.output<typeof approvalSchema>;
export type EvalTurn = z.output<typeof turnSchema>;
