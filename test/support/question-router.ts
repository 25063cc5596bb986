/**
 * A script for the scripted OpenAI server chosen by question: each question has its replies, one
 * per round of its turn (the round is the number of assistant messages after the last user
 * message). Runs of several cases arrive side by side, so no fixed order of requests exists.
 */
import type { ChatRequestBody, ScriptRouter, ScriptStep } from './scripted-openai-server.ts';

/** The replies to a question, by round; a function gets the number of earlier first rounds of the same question (the run). */
export type QuestionScript = Record<string, ScriptStep[] | ((run: number) => ScriptStep[])>;

export function lastUserText(body: ChatRequestBody): string {
  const user = body.messages.findLast((message) => message['role'] === 'user');
  return typeof user?.['content'] === 'string' ? user['content'] : '';
}

export function questionRouter(script: QuestionScript): ScriptRouter {
  const runs = new Map<string, number>();
  const current = new Map<string, ScriptStep[]>();
  return (body) => {
    const question = lastUserText(body);
    const entry = script[question];
    if (!entry) return undefined;
    const lastUser = body.messages.findLastIndex((message) => message['role'] === 'user');
    const round = body.messages.slice(lastUser + 1).filter((message) => message['role'] === 'assistant').length;
    if (round === 0) {
      const run = runs.get(question) ?? 0;
      runs.set(question, run + 1);
      current.set(question, typeof entry === 'function' ? entry(run) : entry);
    }
    return current.get(question)?.[round];
  };
}
