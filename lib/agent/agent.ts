import { randomBytes, randomUUID } from 'node:crypto';
import type { CallerToken } from '../core/caller-token.ts';
import { ModelNotConfiguredError, NotFoundError } from '../core/errors.ts';
import { windowOfMessages } from '../core/history.ts';
import type { ConversationKey, ConversationState } from '../core/ports/conversation-store.ts';
import type { ModelClient } from '../core/ports/model.ts';
import type { TurnResult } from '../core/turn.ts';
import type { AgentConfig } from '../config/load.ts';
import type { Agent, AskInput, DecideInput } from './agent-api.ts';
import type { AgentParts } from './agent-parts.ts';
import { createBudgets, type Admission } from './budgets/admission.ts';
import { readConversationPage, type ConversationPageRequest } from './conversations/conversation-page.ts';
import { memoryApi } from './conversations/memory-api.ts';
import { healthReport } from './health.ts';
import { answerCheck } from './loop/answer-check.ts';
import { applyToolPolicies, asksUser, builtInApproval, type OfferedTool } from './loop/tool-policy.ts';
import { agentSettings } from './settings.ts';
import type { DriveInput } from './turn/drive-turn.ts';
import { carriedAnswerCheck } from './turn/carried-format.ts';
import { newConversationId } from './turn/new-conversation.ts';
import { openApprovals, planDecisions } from './turn/open-approvals.ts';
import { openTurn } from './turn/open-turn.ts';
import { askDigest, decideDigest } from './turn/request-digest.ts';
import { requestScopes, type RequestScope } from './turn/request-scope.ts';
import { readResponseFormat } from './turn/read-response-format.ts';
import { readStoredTurn } from './turn/stored-turn.ts';
import { turnRunner, type OpenedTurn } from './turn/turn-runner.ts';
import { newDraft } from './turn/turn-draft.ts';
import { checkConversationId, checkDecisions, checkEarlierMessages, checkMessage, checkRequestId } from './turn/validate-input.ts';

/**
 * The turn service: a question or a decision opens a turn (claimed once in the store), its
 * extensions and strategy run it on the loop, and it is stored. Everything it reaches, it reaches
 * through the parts it is given.
 */
export function assembleAgent(config: AgentConfig, parts: AgentParts): Agent {
  const { gateway, store, logger, extensions } = parts;
  const now = parts.now ?? Date.now;
  const hmacKey = parts.hmacKey ?? randomBytes(32);
  const settings = agentSettings(config);
  const files = config.files.enabled ? parts.files : undefined;
  // A per-user server's call may wait for its owner to connect their account, as a question would.
  const policies = new Map(config.mcpServers.map((server) => [server.name, { ...server, asksUser: asksUser(server, config.tools) || ('auth' in server && server.auth?.mode === 'per-user') }]));
  const budgets = createBudgets({ limits: config.limits, counters: parts.ownerCounters, logger, metrics: parts.metrics, now });
  const offeredTools = async (): Promise<OfferedTool[]> => applyToolPolicies(await gateway.listTools(), policies);
  const scopes = requestScopes({ settings, store, logger, now });
  const runTurn = turnRunner({ settings, parts: { ...parts, now }, builtInNeedsApproval: builtInApproval(config.builtInTools.requireApproval, policies) });

  const modelOrRefuse = (): ModelClient => {
    if (!parts.model) throw new ModelNotConfiguredError(parts.modelNotConfigured);
    return parts.model;
  };
  /** What both kinds of request share: ids, lease and the owner's budgets around the work. */
  const admitted = <T>(input: { conversationId: string; owner?: string; requestId?: string; deadlineAt?: number; callerToken?: CallerToken }, refuseWhenSpent: boolean, work: (scope: RequestScope, admission: Admission) => Promise<T>) =>
    scopes.start(input, (scope) => budgets.admitted({ owner: scope.key.owner, holder: scope.claimId, lease: scope.lease, refuseWhenSpent }, (admission) => work(scope, admission)));

  async function ask(input: AskInput): Promise<TurnResult> {
    checkMessage(input.message, config.http.maxMessageChars);
    if (input.conversationId !== undefined) checkConversationId(input.conversationId);
    checkRequestId(input.requestId);
    const model = modelOrRefuse();
    if (input.earlierMessages !== undefined) checkEarlierMessages(input.earlierMessages, input.conversationId);
    // A schema that is not valid JSON Schema is refused before anything is claimed.
    const check = input.responseFormat && answerCheck(readResponseFormat(input.responseFormat));
    const conversationId = input.conversationId ?? newConversationId(input.requestId, input.owner, hmacKey);
    return admitted({ ...input, conversationId }, true, async (scope, admission) => {
      // A long chat sent whole would reach the model's context limit: it gets what a stored one would.
      const draft = newDraft(input.message, input.earlierMessages && windowOfMessages(input.earlierMessages, config.history.maxTokens));
      // Listing tools (slow only on a cold start) and opening the turn run side by side.
      const [listed, opened] = await Promise.allSettled([
        offeredTools(),
        openTurn({ ...scopes.openingOf(scope), requestDigest: askDigest(input), draft, admit: admission.checkConversation, newConversation: input.conversationId === undefined }),
      ]);
      if (opened.status === 'rejected') throw opened.reason;
      if (opened.value.kind === 'replay') {
        logger.info('turn replayed', { conversationId, requestId: scope.requestId, turn: opened.value.result.turn });
        return opened.value.result;
      }
      if (listed.status === 'rejected') {
        await scopes.giveBack(opened.value.held); // nothing ran
        throw listed.reason;
      }
      const turn: OpenedTurn = { ...opened.value, draft };
      return runTurn(scope, admission, model, listed.value, turn, input, () => ({ ...(input.instructions ? { instructions: input.instructions } : {}), ...(check ? { answerCheck: check } : {}) }));
    });
  }

  async function decide(input: DecideInput): Promise<TurnResult> {
    checkConversationId(input.conversationId);
    checkRequestId(input.requestId);
    checkDecisions(input.decisions);
    const model = modelOrRefuse();
    return admitted(input, false, async (scope, admission) => {
      const mcpTools = await offeredTools();
      const opened = await openApprovals({ ...scopes.openingOf(scope), requestDigest: decideDigest(input.decisions), decisions: input.decisions });
      if (opened.kind === 'replay') return opened.result;
      const { waiting, asked } = opened;
      return runTurn(scope, admission, model, mcpTools, opened, input, (runner): Partial<DriveInput> => ({
        decided: planDecisions(waiting, { decisions: input.decisions, asked, tools: new Map(runner.tools.map((tool) => [tool.name, tool])), route: (call) => runner.route(call), ...(runner.callPolicy ? { policy: runner.callPolicy } : {}) }),
        ...carriedFormat(runner),
      }));
    });
  }

  async function getConversation(key: ConversationKey, page: ConversationPageRequest = {}) {
    checkConversationId(key.conversationId);
    // The last page also shows what the extensions keep in the conversation (a todo list, a plan).
    const viewFields = (state: ConversationState) => Object.assign({}, ...extensions.map((extension) => extension.view?.(state[extension.name] ?? {}) ?? {}));
    return readConversationPage(key, page, { store, rules: settings.rules, hmacKey, now: now(), viewFields });
  }

  async function deleteConversation(key: ConversationKey): Promise<void> {
    checkConversationId(key.conversationId);
    // Its files first: if that fails, the conversation is still there and the DELETE can be retried.
    const deletedFiles = files ? await files.deleteAll(key) : 0;
    if ((await store.deleteConversation(key)) === 0 && deletedFiles === 0) throw notFound(key);
  }

  return {
    ...memoryApi(config.memory.enabled ? parts.notes : undefined, config.memory.maxNotes),
    ...parts.filesApi,
    ...(parts.connections ? { connections: parts.connections } : {}),
    ask,
    decide,
    getConversation,
    deleteConversation,
    getTurnTrace: (key, turn) => {
      checkConversationId(key.conversationId);
      return parts.readTurnTrace(store, key, turn);
    },
    readTurn: (key, turn) => {
      checkConversationId(key.conversationId);
      return readStoredTurn({ store, key, turn, now: now(), claimId: randomUUID(), rules: settings.rules });
    },
    health: () => healthReport({ gateway, model: parts.model, modelConfig: config.model, offeredTools, logger, ...(parts.callPolicy ? { toolPolicy: parts.callPolicy.description } : {}) }),
    connect: () => gateway.listTools().then(() => undefined, () => undefined),
    close: () => gateway.close(),
  };
}

/** A paused turn that asked for a structured answer checks its answer when resumed too. */
function carriedFormat(runner: Parameters<typeof carriedAnswerCheck>[0]): Partial<DriveInput> {
  const check = carriedAnswerCheck(runner);
  return check ? { answerCheck: check } : {};
}

const notFound = (key: ConversationKey) =>
  new NotFoundError('conversation_not_found', `There is no conversation "${key.conversationId}". Start one with POST /conversations.`);
