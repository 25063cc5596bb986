/**
 * `node test/bench/reflection-cost.ts`: what each reflection strategy costs in model calls, and in
 * the tokens those calls send (estimated as the service estimates history, lib/core/history.ts),
 * for one question that needs one tool call, through the real agent (createAgent, the loop, the
 * extensions, the trace) with a scripted model that answers each request by what it is for. The
 * table in docs/reflection.md is this script's output.
 */
import { createMemoryNoteStore } from '../../lib/adapters/memory/note-store.ts';
import { createMemoryOwnerCounters } from '../../lib/adapters/memory/owner-counters.ts';
import { createMemoryConversationStore } from '../../lib/adapters/memory/conversation-store.ts';
import { createAgent } from '../../lib/create-agent.ts';
import { parseConfig } from '../../lib/config/load.ts';
import { estimateTokens } from '../../lib/core/history.ts';
import { silentLogger } from '../../lib/core/logger.ts';
import type { ModelReply, ModelRequest } from '../../lib/core/ports/model.ts';
import { createScriptedModel, textReply, toolCallsReply } from '../../lib/testing/scripted-model.ts';
import { testGateway } from '../support/agent-fixture.ts';

/** How the scripted model behaves: whether its first trial fails, whether its critiques are ever content. */
interface Behaviour {
  /** The first trial keeps calling tools (Reflexion: it runs out of its rounds). */
  firstTrialLoops?: boolean;
  /** Critiques that say REVISE before the first OK (Infinity: never content). */
  revisionsWanted?: number;
}

const QUESTION = '上海天气怎么样？';

function replyFor(behaviour: Behaviour): (request: ModelRequest) => ModelReply {
  let critiques = 0;
  let calls = 0;
  return (request) => {
    const last = [...request.messages].reverse().find((message) => message.role === 'user')?.content ?? '';
    const sinceAsked = request.messages.slice(request.messages.map((message) => message.role).lastIndexOf('user') + 1);
    if (last.startsWith('Review the answer')) return textReply(critiques++ < (behaviour.revisionsWanted ?? 0) ? 'Too vague.\nVERDICT: REVISE' : 'Fine.\nVERDICT: OK');
    if (last.startsWith('Write your answer again')) return textReply('上海：多云，21°C。');
    if (last.startsWith('Your attempt above')) return textReply('Call getWeather with the city at once.');
    if (last.endsWith('best answer only.')) return textReply('1');
    const retry = last.startsWith('[Reflection]');
    if (behaviour.firstTrialLoops && !retry) return toolCallsReply([{ id: `loop_${calls++}`, name: 'getNews', arguments: { categorys: [1] } }]);
    return sinceAsked.some((message) => message.role === 'tool' && message.name === 'getWeather') ? textReply('上海：多云。') : toolCallsReply([{ id: `weather_${calls++}`, name: 'getWeather', arguments: { city: '上海' } }]);
  };
}

async function measure(name: string, yaml: string, behaviour: Behaviour = {}) {
  const step = replyFor(behaviour);
  const model = createScriptedModel(Array.from({ length: 50 }, () => step));
  const gateway = testGateway();
  const agent = createAgent(parseConfig(`model: { maxRetries: 0 }\n${yaml}`, { source: 'bench.yml', environment: {} }), {
    ownerCounters: createMemoryOwnerCounters(),
    model,
    gateway,
    store: createMemoryConversationStore(),
    notes: createMemoryNoteStore(),
    logger: silentLogger,
  });
  const result = await agent.ask({ conversationId: 'bench', message: QUESTION });
  const sent = model.requests.reduce((sum, request) => sum + estimateTokens(request.messages), 0);
  return { strategy: name, 'model calls': model.requests.length, rounds: result.rounds, 'tokens sent (est.)': sent, stopReason: result.stopReason };
}

const rows = [
  await measure('react (baseline)', ''),
  await measure('Self-Refine, first critique OK', 'reflection: { selfRefine: true }'),
  await measure('Self-Refine, one revision', 'reflection: { selfRefine: true }', { revisionsWanted: 1 }),
  await measure('Self-Refine, never content (maxRevisions 2)', 'reflection: { selfRefine: true, maxRevisions: 2 }', { revisionsWanted: Number.POSITIVE_INFINITY }),
  await measure('Reflexion, first trial succeeds', 'strategy: reflexion'),
  await measure('Reflexion, first trial succeeds, evaluate off', 'strategy: reflexion\nreflection: { evaluate: false }'),
  await measure('Reflexion, first trial runs out (trialRounds 2)', 'strategy: reflexion\nreflection: { trialRounds: 2 }', { firstTrialLoops: true }),
  await measure('self-consistency, samples 3', 'reflection: { samples: 3 }'),
  await measure('self-consistency, samples 3 + judge', 'reflection: { samples: 3, judgePrompt: "Pick the best answer." }'),
  await measure('samples 3 + Self-Refine', 'reflection: { samples: 3, selfRefine: true }'),
];
console.table(rows);
