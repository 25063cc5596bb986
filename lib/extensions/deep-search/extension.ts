import { errorMessage } from '../../core/errors.ts';
import { followSignal } from '../../core/deadline.ts';
import type { JsonObject } from '../../core/json.ts';
import type { ToolDefinition, ToolGateway, ToolOutput } from '../../core/ports/tools.ts';
import type { AgentExtension, RunningCall, TurnContext } from '../../agent/extension-api/extension.ts';
import { applyToolPolicies, type ToolPolicy } from '../../agent/loop/tool-policy.ts';
import { SUMMARY_PROMPT, TOOL_DESCRIPTION, TOOL_NAME, citedSources, sourceList, subQueriesOf, subQueryPrompt, summaryRequest, type Source } from './prompts.ts';
import { searchResultsOf } from './search-results.ts';

/**
 * Deep search (agent.yml `deepSearch`), after JoyAgent-JDGenie's deep_search: a built-in
 * `deep_search({query})` tool that runs one bounded pass over a search tool of an MCP server.
 *
 *   deep_search({query}) ─► model: sub-queries (a round) ─► search each (tool calls, at once)
 *     ─► read the best results (tool calls, at once; with readTool) ─► model: sourced summary (a round)
 *     ◄─ summary + "Sources: [n] title <url>" ◄──────────────────────────────────────┘
 *
 * Its two model calls are rounds of the turn (maxRounds) and count in its usage and token budgets;
 * its search and read calls go through the gateway to the tools agent.yml's policy offers this
 * turn, at most maxSubQueries + maxReads of them, each within the call's timeout and the turn's
 * time. Progress streams as `deep-search` events, one per step.
 */
export interface DeepSearchSettings {
  server: string;
  tool: string;
  queryArgument: string;
  readTool?: string;
  readArgument: string;
  maxSubQueries: number;
  maxResults: number;
  maxReads: number;
  maxReadChars: number;
  /** model.timeoutSeconds, in ms. */
  modelTimeoutMs: number;
  /** The server's tool policy (agent.yml): a tool it would hold for approval is not called. */
  policy: ToolPolicy;
  gateway: ToolGateway;
}

const PARAMETERS = {
  type: 'object',
  properties: {
    query: { type: 'string', minLength: 1, maxLength: 2_000, description: 'The question to research, completely, in the user\'s language.' },
  },
  required: ['query'],
  additionalProperties: false,
};

const EVENT = 'deep-search';

export function deepSearchExtension(settings: DeepSearchSettings): AgentExtension {
  return {
    name: 'deepSearch',
    tools: [
      {
        definition: { name: TOOL_NAME, description: TOOL_DESCRIPTION, parameters: PARAMETERS, annotations: { readOnlyHint: false, destructiveHint: false } },
        run: (args, call, turn) => deepSearch(String(args.query).trim(), settings, call, turn),
      },
    ],
  };
}

async function deepSearch(question: string, settings: DeepSearchSettings, call: RunningCall, turn: TurnContext): Promise<ToolOutput> {
  const search = usableTool(turn, settings, settings.tool);
  if (typeof search === 'string') return { ok: false, text: `Deep search is unavailable: ${search}. Answer without it.` };
  const reader = settings.readTool === undefined || settings.maxReads === 0 ? undefined : usableTool(turn, settings, settings.readTool);
  const emit = (data: Record<string, unknown>) => turn.emit(EVENT, { toolCallId: call.id, ...data });
  // Each step reported keeps the call from its idle timeout (up to tools.maxCallSeconds), and streams as tool-progress.
  const progress = (step: number, message: string) => call.onProgress?.({ progress: step, total: 4, message });

  // 1. Sub-queries: a model call, a round of the turn.
  if (!turn.takeRound()) return { ok: false, text: 'No model round is left in this turn (maxRounds) to plan the searches: answer with what you have.' };
  const plan = await ask(turn, call, settings, subQueryPrompt(settings.maxSubQueries), `Question: ${question}`);
  const queries = subQueriesOf(plan, question, settings.maxSubQueries);
  emit({ step: 'sub-queries', queries });
  progress(1, `searching ${queries.length} queries`);

  // 2. Each sub-query searched, at once; each URL kept once, under its first finder.
  const failures: string[] = [];
  const sources: Source[] = [];
  const found = await Promise.all(queries.map((query) => callTool(settings, search, { [settings.queryArgument]: query }, call, turn)));
  found.forEach((output, index) => {
    const query = queries[index]!;
    const results = output.ok ? searchResultsOf(output.text).slice(0, settings.maxResults) : [];
    emit({ step: 'search', query, ok: output.ok, results: results.length });
    if (!output.ok) failures.push(`"${query}": ${output.text}`);
    for (const result of results) if (!sources.some((source) => source.url === result.url)) sources.push({ ...result, query, number: sources.length + 1 });
  });
  if (sources.length === 0) {
    const why = failures.length > 0 ? `The searches failed:\n${failures.join('\n')}` : `The searches (${queries.map((query) => `"${query}"`).join(', ')}) found nothing.`;
    return { ok: failures.length === 0, text: `${why}\nTry other words, or answer without a search.` };
  }

  // 3. The best results read: each sub-query's first, then each one's second, and so on.
  if (reader !== undefined && typeof reader !== 'string') {
    progress(2, `reading ${Math.min(settings.maxReads, sources.length)} pages`);
    const chosen = bestFirst(sources, queries).slice(0, settings.maxReads);
    const pages = await Promise.all(chosen.map((source) => callTool(settings, reader, { [settings.readArgument]: source.url }, call, turn)));
    pages.forEach((page, index) => {
      const source = chosen[index]!;
      if (page.ok) source.read = page.text.length > settings.maxReadChars ? `${page.text.slice(0, settings.maxReadChars)} [cut]` : page.text;
      emit({ step: 'read', url: source.url, ok: page.ok });
    });
  }

  // 4. The summary: a model call, a round of the turn; without one left, the results as found.
  const material = summaryRequest(question, sources, failures);
  if (!turn.takeRound()) {
    emit({ step: 'summary', sources: [] });
    return { ok: true, text: `No model round was left to summarize (maxRounds); the search results as found:\n\n${material}` };
  }
  progress(3, 'writing the summary');
  const summary = (await ask(turn, call, settings, SUMMARY_PROMPT, material)).trim();
  const used = citedSources(summary, sources);
  emit({ step: 'summary', sources: used.map((source) => source.url) });
  const unread = typeof reader === 'string' ? `\n\n(Pages were not read: ${reader}.)` : '';
  return { ok: true, text: `${summary}\n\nSources:\n${sourceList(used)}${unread}` };
}

/** The configured tool as offered this turn, or why it cannot be called. */
function usableTool(turn: TurnContext, settings: DeepSearchSettings, name: string): ToolDefinition | string {
  const tool = turn.tools.find((offered) => offered.server === settings.server && (offered.originalName ?? offered.name) === name);
  if (!tool) return `the tool "${name}" of MCP server "${settings.server}" is not offered now (its server is down, does not list it, or agent.yml's policy leaves it out)`;
  // Tool control's own rule, applied to the tool as listed now (a `destructive` rule reads its annotations).
  const [checked] = applyToolPolicies([tool], new Map([[settings.server, settings.policy]]));
  if (!checked) return `agent.yml's policy leaves out the tool "${name}" of MCP server "${settings.server}"`;
  if (checked.needsApproval) return `the tool "${name}" of MCP server "${settings.server}" needs approval under agent.yml's requireApproval, and deep search calls only tools that do not`;
  return tool;
}

/** One call through the gateway, within the deep_search call's time; a failure is a result that says why. */
async function callTool(settings: DeepSearchSettings, tool: ToolDefinition, args: JsonObject, call: RunningCall, turn: TurnContext): Promise<ToolOutput> {
  // A signal of this call's own, which the deep_search call's later end does not reach (ToolCallOptions.signal).
  const own = followSignal(call.signal);
  try {
    return await settings.gateway.callTool(tool.name, args, {
      signal: own.signal,
      timeoutMs: Math.max(1, Math.min(call.timeoutMs, turn.timeLeftMs())),
      caller: { conversationId: turn.conversationId, ...(turn.owner === undefined ? {} : { owner: turn.owner }) },
    });
  } catch (error) {
    return { ok: false, text: `the call failed (${errorMessage(error)})` };
  } finally {
    own.release();
  }
}

async function ask(turn: TurnContext, call: RunningCall, settings: DeepSearchSettings, system: string, user: string): Promise<string> {
  const reply = await turn.model.complete({
    messages: [{ role: 'system', content: system }, { role: 'user', content: user }],
    tools: [],
    signal: call.signal,
    timeoutMs: Math.max(1, Math.min(settings.modelTimeoutMs, turn.timeLeftMs())),
  });
  turn.addUsage(reply.usage);
  return reply.content ?? '';
}

/** Sources in reading order: each sub-query's best result first, then each one's second, and so on. */
function bestFirst(sources: readonly Source[], queries: readonly string[]): Source[] {
  const byQuery = queries.map((query) => sources.filter((source) => source.query === query));
  const longest = Math.max(...byQuery.map((list) => list.length));
  return Array.from({ length: longest }, (_, rank) => byQuery.flatMap((list) => (list[rank] ? [list[rank]] : []))).flat();
}
