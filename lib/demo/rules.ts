/**
 * The offline demo model's few rules, deterministic but for call ids:
 *
 *   the last round ran tools        → an answer worded from their results
 *   weather in a known city         → getWeather per city          ┐ several kinds in one
 *   news                            → getNews (the named categories) ├ question: all their calls
 *   cancel + order numbers          → batchCancelOrdersByOrderNo     ┘ in one reply
 *   "which functions / tools"       → the list of offered tools
 *   weather without a city          → asks which city
 *   anything else                   → what it can do, and how to configure a real model
 *
 * Tools are found by the demo MCP server's names (a gateway may have renamed them) and called by
 * the names the model sees.
 */
import type { Message, ToolCall } from '../core/messages.ts';
import type { ModelReply } from '../core/ports/model.ts';
import type { ToolDefinition } from '../core/ports/tools.ts';
import { answerText, callingText, missingToolText, noRuleText, toolListText, whichCityText, type ToolResult } from './answers.ts';
import { readQuestion, type DemoQuestion } from './questions.ts';

const ALL_NEWS_CATEGORIES = [1, 2, 3, 4, 5];

export function demoReply(messages: Message[], tools: ToolDefinition[], makeId: () => string): ModelReply {
  const lastUser = messages.findLastIndex((message) => message.role === 'user');
  const userMessage = messages[lastUser];
  const question = readQuestion(userMessage?.role === 'user' ? userMessage.content : '');
  const results = lastRoundResults(messages.slice(lastUser + 1), tools);
  if (results.length > 0) return textReply(answerText(question.language, results));
  return planReply(question, tools, makeId);
}

/** The tool messages answering the last assistant message of the turn, if they end the messages. */
function lastRoundResults(turn: Message[], tools: ToolDefinition[]): ToolResult[] {
  const results: ToolResult[] = [];
  for (let position = turn.length - 1; position >= 0; position -= 1) {
    const message = turn[position]!;
    if (message.role !== 'tool') break;
    const tool = tools.find((candidate) => candidate.name === message.name);
    results.unshift({ tool: tool?.originalName ?? message.name, content: message.content });
  }
  return results;
}

function planReply(question: DemoQuestion, tools: ToolDefinition[], makeId: () => string): ModelReply {
  const calls: ToolCall[] = [];
  const missing: string[] = [];
  const call = (demoToolName: string, args: Record<string, unknown>) => {
    const tool = tools.find((candidate) => (candidate.originalName ?? candidate.name) === demoToolName);
    if (tool) calls.push({ id: makeId(), name: tool.name, arguments: JSON.stringify(args) });
    else missing.push(demoToolName);
  };

  for (const city of question.cities) call('getWeather', { city });
  if (question.asksNews) call('getNews', { categorys: question.newsCategories.length > 0 ? question.newsCategories : ALL_NEWS_CATEGORIES });
  if (question.asksToCancel && question.orderNumbers.length > 0) call('batchCancelOrdersByOrderNo', { orderNos: question.orderNumbers });

  if (calls.length > 0) {
    const names = calls.map((each) => tools.find((tool) => tool.name === each.name)?.originalName ?? each.name);
    return { content: callingText(question.language, names), toolCalls: calls, usage: NO_TOKENS };
  }
  if (missing.length > 0) return textReply(missingToolText(question.language, missing[0]!));
  if (question.asksForTools) return textReply(toolListText(question.language, tools));
  if (question.asksWeather) return textReply(whichCityText(question.language));
  return textReply(noRuleText());
}

/** No language model ran, so no tokens were used. */
const NO_TOKENS = { promptTokens: 0, completionTokens: 0 };

const textReply = (content: string): ModelReply => ({ content, toolCalls: [], usage: NO_TOKENS });
