/** agent.yml `strategy` and its settings: `reflection` (Self-Refine, Reflexion, self-consistency) and plan-execute's `planner`, `executor` and `summary`. */

import * as z from 'zod';
import { boolean, numeric, positiveInt } from './shared.ts';

/** plan-execute: the planner's part of the system prompt. */
const DEFAULT_PLANNER_PROMPT = `## Planning
You plan; others carry out the plan. Break the user's request into the fewest tasks that get it done (at most the number the planning tool allows), in the order they must run, and write them with the planning tool (action "create"). Each task is one clear instruction another assistant can carry out with the tools alone; put what it needs to know in its details. Mark a task "independent" when it needs nothing from the tasks before it. Do not carry out the tasks yourself. When the plan is written, reply with one short sentence.
When you are shown the progress of a plan: if the remaining tasks still fit, reply "continue"; otherwise change them with the planning tool ("update" replaces the tasks not started yet, "mark_task" blocks one that cannot be done), then reply with one short sentence.`;

/** plan-execute: an executor's part of the system prompt. */
const DEFAULT_EXECUTOR_PROMPT = `## Your task
You carry out one task of a larger plan. Use the tools to do exactly this task, nothing more. When it is done (or cannot be done), reply with the result in a few sentences: the facts, ids and numbers the next tasks and the final answer need, and anything that failed.`;

/** plan-execute: the part of the system prompt that writes the final answer. */
const DEFAULT_SUMMARY_PROMPT = `## Final answer
The user's request was worked on as a plan of tasks; their results are below. Write the answer to the user from them: what was done, what was found, and what failed or was not done. Do not invent results that are not there.`;

/** reflection: what the critique of an answer checks. */
const DEFAULT_CRITIQUE_PROMPT = `Review the answer you just gave, as a strict reviewer. Check it against the user's question and the tool results above: is every fact, name and number backed by a tool result or the conversation; does it answer all of the question; is anything wrong, missing or unclear? List the problems briefly. Do not write a new answer.`;

/** reflection: how a revision is asked for. */
const DEFAULT_REVISE_PROMPT = `Write your answer again, fixing the problems the review found. Use only what the tool results and the conversation support. Reply with the new answer only, written for the user.`;

/** reflexion: how the reflection on a failed trial is asked for. */
const DEFAULT_REFLECT_PROMPT = `Your attempt above did not succeed. In two or three sentences, say why it failed and what you will do differently on the next attempt (which tools, which arguments, which order). Write it as a lesson that would help with similar questions later. Reply with the lesson only.`;

/** The reflection strategies' settings (lib/strategies/reflection, docs/reflection.md). */
export const reflectionSchema = z.strictObject({
  /** Self-Refine: after the answer, a critique of it and a revision, until the critique finds nothing to change. */
  selfRefine: boolean().default(false),
  /** Self-Refine: revisions at most (each costs two model calls: the critique and the revision). */
  maxRevisions: numeric(z.number().int().min(1).max(10)).default(2),
  /** What the critique checks (the verdict protocol is added after it). */
  critiquePrompt: z.string().min(1).default(DEFAULT_CRITIQUE_PROMPT),
  /** How the revision is asked for, after the critique. */
  revisePrompt: z.string().min(1).default(DEFAULT_REVISE_PROMPT),
  /** reflexion: trials at most, the first included. */
  maxTrials: numeric(z.number().int().min(1).max(10)).default(3),
  /** reflexion: model calls one trial may use (default: maxRounds shared evenly among the trials and their reflections). */
  trialRounds: positiveInt().optional(),
  /** reflexion: each trial's answer is critiqued, and one that does not answer the question is a failed trial (one model call each). */
  evaluate: boolean().default(true),
  /** reflexion: how the reflection on a failed trial is asked for. */
  reflectPrompt: z.string().min(1).default(DEFAULT_REFLECT_PROMPT),
  /** reflexion: lessons (kept reflections) quoted in front of a question, the most relevant first; 0 keeps none. */
  lessons: numeric(z.number().int().min(0).max(20)).default(3),
  /** Self-consistency: final answers asked for (the first included); the one most of them agree with is kept. */
  samples: numeric(z.number().int().min(1).max(10)).default(1),
  /** Self-consistency: a model call that picks among the samples instead of the vote. */
  judgePrompt: z.string().min(1).optional(),
});

/**
 * `react`: the plain tool loop; `plan-execute`: a planner, an executor per task, and a summary;
 * `reflexion`: the loop, tried again after a reflection on why a trial failed (docs/reflection.md).
 */
export const strategySchema = z.enum(['react', 'plan-execute', 'reflexion']).default('react');

/** plan-execute: the planner, which writes the plan and adjusts it as tasks finish. */
export const plannerSchema = z
  .strictObject({
    /** Tasks a plan may have. */
    maxTasks: positiveInt().default(5),
    /** Independent tasks that run at once (one at a time when any tool may need approval). */
    parallelTasks: positiveInt().default(3),
    /** Model calls each planning step may use (within maxRounds). */
    maxRounds: positiveInt().default(3),
    prompt: z.string().min(1).default(DEFAULT_PLANNER_PROMPT),
  })
  .prefault({});

/** plan-execute: the executor that carries out each task. */
export const executorSchema = z
  .strictObject({
    /** Model calls each task may use (within maxRounds). */
    maxRounds: positiveInt().default(6),
    prompt: z.string().min(1).default(DEFAULT_EXECUTOR_PROMPT),
  })
  .prefault({});

/** plan-execute: the model call that writes the final answer from the tasks' results (agent.yml `summary`). */
export const planSummarySchema = z.strictObject({ prompt: z.string().min(1).default(DEFAULT_SUMMARY_PROMPT) }).prefault({});
