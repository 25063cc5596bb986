import { errorMessage } from '../core/errors.ts';
import { estimateTokens, selectTurnsWithinBudget } from '../core/history.ts';
import type { Logger } from '../core/logger.ts';
import type { HistoryMessage } from '../core/messages.ts';
import type { JsonObject } from '../core/json.ts';
import type { AgentExtension, EarlierTurn, TurnContext, TurnPlan } from '../agent/extension-api/extension.ts';
import { transcriptOf } from './history-transcript.ts';

/**
 * Long conversations (agent.yml `history.strategy: summarize`). The history sent is one summary of
 * the older turns, then every turn after it, whole, within history.maxTokens less
 * history.summary.maxTokens (the kept budget):
 *
 *   [system] [user: summary of turns 1..k] [assistant: noted] [turn k+1] ... [turn n-1] [question]
 *
 * The summary is stored in the conversation's state (one item with the turn) with the last turn it
 * covers. When the turns after it outgrow the kept budget, one model call writes the summary again
 * from the old summary and the turns that fall out, keeping whole only the newest within half the
 * budget: the next call comes when that much has gathered again. Other turns cost no call. The summary stands
 * as a user message, as the user's own words would (it never gains the system prompt's authority),
 * followed by a short assistant reply so that roles still alternate for chat templates that demand
 * it; neither carries tool calls, and the kept turns are whole, so no call is parted from its result.
 *
 * The call runs with the turn's model (its budgets apply), within the turn's time, and its tokens
 * count in the turn's usage. If it fails, the turn sends the window (after the old summary, if any)
 * and says so in the log: a summary never fails a turn.
 */

interface HistorySummarySettings {
  /** history.summary.maxTokens: the summary's size, kept back from the history budget. */
  maxTokens: number;
  /** history.summary.prompt: the instructions of the summary call. */
  prompt: string;
  /** model.timeoutSeconds, in ms: the most one summary call may take. */
  modelTimeoutMs: number;
  logger: Logger;
}

/** The summary as the conversation keeps it: its text, and the last turn it covers. */
interface HistorySummary {
  text: string;
  throughTurn: number;
}

export const SUMMARY_ACKNOWLEDGED = 'Noted: that is what we discussed before. I will go on from there.';

export const summaryNote = (summary: HistorySummary) =>
  `Summary of our conversation before the messages that follow (turns 1 to ${summary.throughTurn}, summarized because they no longer fit in full):\n${summary.text}`;

/**
 * The turns kept whole after a summary is written: the newest within half the kept budget (or the
 * newest alone, when it is larger), so that the turns after it fit again for a while and the next
 * summary call comes only when about half the budget of new turns has gathered, not every turn.
 */
function keptAfterSummary(since: readonly EarlierTurn[], keptBudget: number): EarlierTurn[] {
  const newestFirst = [...since].reverse();
  const kept = selectTurnsWithinBudget(newestFirst, Math.floor(keptBudget / 2));
  if (kept.length > 0) return kept;
  const newest = newestFirst[0];
  return newest && newest.tokens <= keptBudget ? [newest] : [];
}

const tokensOf = (turns: readonly EarlierTurn[]) => turns.reduce((sum, earlier) => sum + earlier.tokens, 0);

/** The summary call gets at least this long, and at most half the turn's time left: the turn needs the rest. */
const LEAST_TIME_MS = 2_000;

export function historySummaryExtension(settings: HistorySummarySettings): AgentExtension {
  return {
    name: 'historySummary',
    async prepareTurn(plan, turn) {
      const stored = summaryOf(turn.state);
      const after = stored?.throughTurn ?? 0;
      const keptBudget = plan.earlier.budgetTokens - settings.maxTokens;
      // The turns since the summary, as far as the window holds them (it holds them all while they fit).
      const since = plan.earlier.window.filter((earlier) => earlier.turn > after);
      const allThere = (since[0]?.turn ?? turn.turn) === after + 1;
      if (allThere && tokensOf(since) <= keptBudget) return { ...plan, history: [...summaryMessages(stored), ...since.flatMap((earlier) => earlier.messages())] };
      const kept = keptAfterSummary(since, keptBudget);
      const firstKept = kept[0]?.turn ?? turn.turn;
      let summary: HistorySummary | undefined;
      try {
        summary = await summarize(plan, turn, stored, firstKept, settings);
      } catch (error) {
        settings.logger.warn('history summary failed: this turn sends the window of whole turns instead', {
          conversationId: turn.conversationId,
          turn: turn.turn,
          error: errorMessage(error),
        });
        return { ...plan, history: [...summaryMessages(stored), ...plan.history] };
      }
      turn.state = { ...summary } as unknown as JsonObject;
      turn.emit('history-summary', { throughTurn: summary.throughTurn });
      return { ...plan, history: [...summaryMessages(summary), ...kept.flatMap((earlier) => earlier.messages())] };
    },
    view: (state) => {
      const summary = summaryOf(state);
      return summary ? { historySummary: summary } : {};
    },
  };
}

/** One model call: the old summary and the turns after it, up to the first kept one, as a new summary. */
async function summarize(plan: TurnPlan, turn: TurnContext, stored: HistorySummary | undefined, firstKept: number, settings: HistorySummarySettings): Promise<HistorySummary> {
  const after = stored?.throughTurn ?? 0;
  const started = Date.now();
  const dropped = await droppedTurns(plan, after, firstKept);
  // The turns' text gets what a turn's history gets; when it holds more, the newest are summarized.
  if (dropped.length === 0) throw new Error(`turns ${after + 1} to ${firstKept - 1} could not be read`);
  const transcript = transcriptOf(dropped, plan.earlier.budgetTokens);
  const request = [
    stored ? `The summary so far (turns 1 to ${after}):\n${stored.text}` : 'The summary so far: none yet.',
    ...(transcript.from > after + 1 ? [`(Turns ${after + 1} to ${transcript.from - 1} were too long to summarize and are left out.)`] : []),
    `The turns that follow it:\n\n${transcript.text}`,
    `Write the summary of turns 1 to ${firstKept - 1}, in at most about ${settings.maxTokens} tokens.`,
  ].join('\n\n');
  const timeLeft = turn.timeLeftMs();
  if (timeLeft < 2 * LEAST_TIME_MS) throw new Error('too little of the turn\'s time is left for a summary');
  const reply = await turn.model.complete({
    messages: [{ role: 'system', content: settings.prompt }, { role: 'user', content: request }],
    tools: [],
    timeoutMs: Math.min(settings.modelTimeoutMs, Math.floor(timeLeft / 2)),
  });
  turn.addUsage(reply.usage);
  const text = (reply.content ?? '').trim();
  if (!text) throw new Error('the model answered the summary request without text');
  // Through the turn before the first kept one, even if turns in between could not be read: never asked again.
  const summary = { text: bounded(text, settings.maxTokens), throughTurn: firstKept - 1 };
  settings.logger.info('history summarized', {
    conversationId: turn.conversationId,
    turn: turn.turn,
    throughTurn: summary.throughTurn,
    turnsSummarized: dropped.filter((earlier) => earlier.turn >= transcript.from).length,
    summaryTokens: estimateTokens([{ role: 'user', content: summary.text }]),
    cut: summary.text !== text,
    durationMs: Date.now() - started,
  });
  return summary;
}

/** The turns after `after` and before `firstKept`, oldest first: from the window, then older ones as far as needed. */
async function droppedTurns(plan: TurnPlan, after: number, firstKept: number): Promise<EarlierTurn[]> {
  const fromWindow = plan.earlier.window.filter((earlier) => earlier.turn > after && earlier.turn < firstKept);
  if ((fromWindow[0]?.turn ?? firstKept) - 1 <= after) return fromWindow;
  const older = await plan.earlier.older((soFar) => soFar.at(-1)!.turn > after + 1 && tokensOf(fromWindow) + tokensOf(soFar) <= plan.earlier.budgetTokens);
  return [...older.filter((earlier) => earlier.turn > after && earlier.turn < firstKept).reverse(), ...fromWindow];
}

/** A summary longer than asked is cut: it must leave the kept turns their part of the budget. */
function bounded(text: string, maxTokens: number): string {
  const tokens = estimateTokens([{ role: 'user', content: text }]);
  if (tokens <= maxTokens) return text;
  return `${text.slice(0, Math.floor((text.length * maxTokens) / tokens * 0.9))}…`;
}

function summaryMessages(summary: HistorySummary | undefined): HistoryMessage[] {
  if (!summary) return [];
  return [
    { role: 'user', content: summaryNote(summary) },
    { role: 'assistant', content: SUMMARY_ACKNOWLEDGED, toolCalls: [] },
  ];
}

function summaryOf(state: JsonObject): HistorySummary | undefined {
  return typeof state.text === 'string' && typeof state.throughTurn === 'number' ? { text: state.text, throughTurn: state.throughTurn } : undefined;
}
