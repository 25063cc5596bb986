import { randomBytes, randomUUID } from 'node:crypto';
import type { CodeFilesFor, CodeSandbox } from '../core/code-sandbox.ts';
import { AgentError, ModelNotConfiguredError, NotFoundError } from '../core/errors.ts';
import { windowOfMessages } from '../core/history.ts';
import { withLogContext } from '../core/log-context.ts';
import type { Logger } from '../core/logger.ts';
import type { HistoryMessage, TokenUsage } from '../core/messages.ts';
import type { ConversationKey, ConversationState, ConversationStore, ModelClient, NoteStore, OwnerCounters, ToolGateway, TurnMetrics } from '../core/ports.ts';
import { createBudgets, USAGE_STATE } from './budgets/admission.ts';
import type { AgentExtension } from './extension.ts';
import { createExtensionRunner } from './extension-runner.ts';
import { asksUser } from './mcp/extensions.ts';
import { configuredExtensions, configuredStrategy } from './strategies/configured.ts';
import { readTurnTrace, type TurnTraceView } from './strategies/trace/read.ts';
import { ms } from '../core/time.ts';
import type { TurnResult } from '../core/turn.ts';
import type { AgentConfig } from '../config/load.ts';
import { readConversationPage, type ConversationPageRequest } from './conversation-page.ts';
import type { ConversationView } from './conversation-view.ts';
import { driveTurn, type DriveInput, type DriveServices } from './drive-turn.ts';
import { deadlineOf, type HeldTurn } from './held-turn.ts';
import { createLease, type KeptClaim, type Lease } from './lease.ts';
import type { LoopEvent } from './loop-events.ts';
import { healthReport, type HealthReport } from './health.ts';
import { memoryApi, type MemoryApi } from './memory-api.ts';
import { newConversationId } from './new-conversation.ts';
import { openApprovals, planDecisions } from './open-approvals.ts';
import { openTurn, type TurnRules } from './open-turn.ts';
import { readStoredTurn, type StoredTurn } from './stored-turn.ts';
import { askDigest, decideDigest } from './request-digest.ts';
import type { TurnStrategy } from './turn-strategy.ts';
import { applyToolPolicies, builtInApproval, type OfferedTool } from './tool-policy.ts';
import { newDraft, type TurnDraft } from './turn-draft.ts';
import { checkConversationId, checkDecisions, checkEarlierMessages, checkMessage, checkRequestId, type ApprovalDecision } from './validate-input.ts';

export type { ConversationView } from './conversation-view.ts';
export type { ConversationPageRequest } from './conversation-page.ts';
export type { HealthReport } from './health.ts';
export type { MemoryApi, NotePage, NotePageRequest } from './memory-api.ts';
export type { TurnTraceView } from './strategies/trace/read.ts';
export type { StoredTurn } from './stored-turn.ts';

export interface AskInput {
  /** Omit to start a new conversation. */
  conversationId?: string;
  message: string;
  /** Makes the call idempotent: a retry with the same id gets the stored turn. */
  requestId?: string;
  /** Scopes the conversation to its owner when authentication is on. */
  owner?: string;
  /** Epoch ms by which the turn must be stored; defaults to now + turn.timeoutSeconds. */
  deadlineAt?: number;
  onEvent?: (event: LoopEvent) => void;
  /**
   * A stateless caller's own history (OpenAI-compatible clients send the whole conversation each
   * time): only for a new conversation, which stores them as the beginning of its first turn, cut
   * to history.maxTokens as a stored history is (the newest whole exchanges).
   */
  earlierMessages?: HistoryMessage[];
  /** The caller's instructions for this turn, after the configured system prompt. */
  instructions?: string;
}

export interface DecideInput {
  conversationId: string;
  /** One decision for every call waiting for approval. */
  decisions: ApprovalDecision[];
  requestId?: string;
  owner?: string;
  deadlineAt?: number;
  onEvent?: (event: LoopEvent) => void;
}

/** An owner's memory notes (memory: true): GET and DELETE /memory. */
export interface Agent extends MemoryApi {
  /** Asks a question: a new turn (or the stored one, for a retried requestId). */
  ask(input: AskInput): Promise<TurnResult>;
  /** Decides the calls a paused turn waits on, and lets the turn go on. */
  decide(input: DecideInput): Promise<TurnResult>;
  /** A page of the conversation's turns, oldest first (20 unless `limit` says otherwise), with a nextToken while more remain. */
  getConversation(key: ConversationKey, page?: ConversationPageRequest): Promise<ConversationView>;
  deleteConversation(key: ConversationKey): Promise<void>;
  /** Each model call of one turn, request and reply in full, as the turn's trace kept them (agent.yml `trace`). */
  getTurnTrace(key: ConversationKey, turn: number): Promise<TurnTraceView>;
  /**
   * One turn as stored now (running, paused or complete), for a client resuming the turn's event
   * stream; undefined when the conversation (of this owner) has no such turn.
   */
  readTurn(key: ConversationKey, turn: number): Promise<StoredTurn | undefined>;
  health(): Promise<HealthReport>;
  close(): Promise<void>;
}

export interface AgentDependencies {
  /** Absent when no model endpoint is configured: questions then fail with 503. */
  model: ModelClient | undefined;
  /** What the 503 says when there is no model: the configured provider's words (default: OpenAI's). */
  modelNotConfigured?: string;
  gateway: ToolGateway;
  store: ConversationStore;
  /** Where memory notes are kept; needed when agent.yml turns memory on. */
  notes?: NoteStore;
  /** Where the code interpreter runs Python; needed when agent.yml turns codeInterpreter on. */
  codeSandbox?: CodeSandbox;
  /** The conversations' files the code interpreter reads and writes; without them it has none. */
  codeFiles?: CodeFilesFor;
  logger: Logger;
  metrics?: TurnMetrics;
  /** Strategies and a developer's own hooks, in the order they run (lib/agent/extension.ts). */
  extensions?: AgentExtension[];
  /**
   * How each turn uses the loop (lib/agent/turn-strategy.ts): a strategy of your own, in place of
   * the one agent.yml's `strategy` chooses (`react`, `plan-execute`).
   */
  strategy?: TurnStrategy;
  /**
   * The deployment's secret (32 random bytes or more): keys the HMAC that derives a conversation id
   * from a requestId, and the one that signs page tokens. Without it, each agent draws its own at
   * random, so a retried "start a conversation" reaches the same conversation only through the same
   * process, and page tokens work only there.
   */
  hmacKey?: Uint8Array;
  /**
   * The per-owner counters of the budgets (agent.yml `limits`): tokens per day, turns running at
   * once. createMemoryOwnerCounters() counts this process only; give every process the same (the
   * DynamoDB adapter) to count across them.
   */
  ownerCounters: OwnerCounters;
  now?: () => number;
}

/** The agent behind every entry point: HTTP, streaming, queue, and embedding code. */
export function createAgent(config: AgentConfig, dependencies: AgentDependencies): Agent {
  const { gateway, store, logger } = dependencies;
  const now = dependencies.now ?? Date.now;
  const hmacKey = dependencies.hmacKey ?? randomBytes(32);
  const policies = new Map(config.mcpServers.map((server) => [server.name, { ...server, asksUser: asksUser(server, config.tools) }]));
  const rules: TurnRules = { maxRounds: config.maxRounds, historyTokenBudget: config.history.maxTokens, approvalTtlSeconds: config.approvals.ttlSeconds };
  // The strategies agent.yml turns on run first, then the embedding code's own extensions, then the trace.
  const extensions = configuredExtensions(config, { logger, now, ...(dependencies.notes ? { notes: dependencies.notes } : {}), ...codeServices(dependencies) }, dependencies.extensions);
  const strategy = dependencies.strategy ?? configuredStrategy(config);
  const budgets = createBudgets({ limits: config.limits, counters: dependencies.ownerCounters, logger, metrics: dependencies.metrics, now });
  const offeredTools = async (): Promise<OfferedTool[]> => applyToolPolicies(await gateway.listTools(), policies);
  const builtInNeedsApproval = builtInApproval(config.builtInTools.requireApproval, policies);
  /** One turn's extensions, with its tools and the conversation's state. */
  const runnerFor = (scope: RequestScope, turn: number, mcpTools: OfferedTool[], opened: { state: ConversationState; history: HistoryMessage[] }, model: ModelClient, onEvent: AskInput['onEvent'], draft: TurnDraft) =>
    createExtensionRunner({
      extensions,
      mcpTools,
      gateway,
      model,
      conversationId: scope.key.conversationId,
      ...(scope.key.owner ? { owner: scope.key.owner } : {}),
      turn,
      state: opened.state,
      history: opened.history,
      deadlineAt: scope.deadlineAt,
      reserveMs: ms(config.turn.reserveSeconds),
      now,
      ...(onEvent ? { onEvent } : {}),
      takeRound: () => takeRound(draft, config.maxRounds),
      builtInNeedsApproval,
    });

  /** What every held turn needs (its model comes with its extensions, in the runner). */
  const services = (conversationUsage: () => TokenUsage): DriveServices => ({
    strategy,
    conversationUsage,
    store,
    logger,
    systemPrompt: config.systemPrompt,
    limits: {
      maxRounds: config.maxRounds,
      modelTimeoutMs: ms(config.model.timeoutSeconds),
      toolTimeoutMs: ms(config.tools.callTimeoutSeconds),
      maxToolCallMs: ms(config.tools.maxCallSeconds),
      maxOutputChars: config.tools.maxOutputChars,
      maxTurnOutputChars: config.tools.maxTurnOutputChars,
      maxCallsPerRound: config.tools.maxCallsPerRound,
      maxCallsPerTurn: config.tools.maxCallsPerTurn,
      maxConcurrentCalls: config.tools.maxConcurrentCalls,
      reserveMs: ms(config.turn.reserveSeconds),
    },
    approvalTtlMs: ms(config.approvals.ttlSeconds),
    storeWaitMs: ms(config.conversation.unavailableWaitSeconds),
    now,
  });

  /** The ids, deadline and lease of one request; its log lines, adapters' included, carry the ids. */
  function start<T>(input: { conversationId: string; owner?: string; requestId?: string; deadlineAt?: number }, work: (request: RequestScope) => Promise<T>): Promise<T> {
    const key: ConversationKey = { conversationId: input.conversationId, ...(input.owner ? { owner: input.owner } : {}) };
    const requestId = input.requestId ?? randomUUID();
    const deadlineAt = input.deadlineAt ?? now() + ms(config.turn.timeoutSeconds);
    // Short and renewed while this process lives; never past the deadline and a margin, when its holder is surely gone.
    const lease = createLease({ durationMs: ms(config.turn.leaseSeconds), latestEnd: deadlineAt + ms(config.turn.leaseMarginSeconds), now, logger });
    return withLogContext({ conversationId: key.conversationId, requestId }, () => work({ key, requestId, deadlineAt, lease, claimId: randomUUID() }));
  }

  /** Renews a held turn's claim until `work` ends: stored, paused (a paused turn holds no lease), given back or failed. */
  async function keepingClaim<T>(scope: RequestScope, held: HeldTurn, work: (lease: KeptClaim) => Promise<T>): Promise<T> {
    const expected = { claimId: held.claimId, status: 'running' as const };
    const kept = scope.lease.keep({ what: 'turn claim', until: held.leaseExpiresAt, renew: (until, signal) => store.renewLease(held.key, held.turn, expected, until, { signal }) });
    try {
      return await work(kept);
    } finally {
      kept.release();
    }
  }

  /** Runs a held turn, with the log lines and metrics of a turn. */
  async function drive(input: DriveInput, conversationUsage: () => TokenUsage, scope: RequestScope): Promise<TurnResult> {
    const log = { conversationId: scope.key.conversationId, requestId: scope.requestId, turn: input.held.turn };
    logger.info(input.decided ? 'turn resumed' : 'turn started', { ...log, historyMessages: input.history.length, tools: input.runner.tools.length });
    const started = now();
    try {
      const result = await driveTurn(input, services(conversationUsage));
      const paused = result.stopReason === 'approval_required' || result.stopReason === 'input_required';
      logger.info(paused ? 'turn paused' : 'turn completed', { ...log, stopReason: result.stopReason, rounds: result.rounds, toolCalls: result.toolCalls.length, ...result.usage, durationMs: now() - started });
      if (config.logging.logPayloads) logger.info('turn payloads', { ...log, reply: result.reply, calls: result.toolCalls, messages: input.draft.messages });
      dependencies.metrics?.turnCompleted(result, now() - started);
      if (result.budget) dependencies.metrics?.limitReached?.(result.budget.limit, 'stopped');
      return result;
    } catch (error) {
      const code = error instanceof AgentError ? error.code : 'internal_error';
      logger.warn('turn failed', { ...log, code, durationMs: now() - started });
      dependencies.metrics?.turnFailed(code, now() - started);
      throw error;
    }
  }

  async function ask(input: AskInput): Promise<TurnResult> {
    checkMessage(input.message, config.http.maxMessageChars);
    if (input.conversationId !== undefined) checkConversationId(input.conversationId);
    checkRequestId(input.requestId);
    const model = dependencies.model;
    if (!model) throw new ModelNotConfiguredError(dependencies.modelNotConfigured);
    if (input.earlierMessages !== undefined) checkEarlierMessages(input.earlierMessages, input.conversationId);
    const conversationId = input.conversationId ?? newConversationId(input.requestId, input.owner, hmacKey);
    return start({ ...input, conversationId }, (scope) => budgets.admitted({ owner: scope.key.owner, holder: scope.claimId, lease: scope.lease, refuseWhenSpent: true }, async (admission) => {
      // A long chat sent whole would reach the model's context limit: it gets what a stored one would.
      const draft = newDraft(input.message, input.earlierMessages && windowOfMessages(input.earlierMessages, config.history.maxTokens));
      // Listing tools (slow only on a cold start) and opening the turn run side by side.
      const [listed, opened] = await Promise.allSettled([
        offeredTools(),
        openTurn({ store, key: scope.key, requestId: scope.requestId, requestDigest: askDigest(input), claimId: scope.claimId, draft, now: now(), leaseExpiresAt: scope.lease.end(), deadline: deadlineOf(scope.deadlineAt, now), waitForStoreUntil: now() + ms(config.conversation.unavailableWaitSeconds), clock: now, rules, admit: admission.checkConversation }),
      ]);
      if (opened.status === 'rejected') throw opened.reason;
      if (opened.value.kind === 'replay') {
        logger.info('turn replayed', { conversationId, requestId: scope.requestId, turn: opened.value.result.turn });
        return opened.value.result;
      }
      const { held, history, state, earlier } = opened.value;
      if (listed.status === 'rejected') {
        // Nothing ran: the claim is given back within the time a request that ran nothing waits for the store.
        await deadlineOf(now() + ms(config.conversation.unavailableWaitSeconds), now)
          .bound((options) => store.remove(held.key, held.turn, { claimId: held.claimId, status: 'running' }, options))
          .catch(() => undefined);
        throw listed.reason;
      }
      return keepingClaim(scope, held, (lease) => {
        // Every model call of the turn (the strategy's and the extensions') goes through its budget.
        const budgeted = admission.turnModel(model, { usage: draft.usage, state, usageState: () => runner.stateOf(USAGE_STATE) });
        const runner = runnerFor(scope, held.turn, listed.value, { state, history }, budgeted.model, input.onEvent, draft);
        input.onEvent?.({ type: 'turn-start', conversationId, turn: held.turn, requestId: scope.requestId });
        return drive({ held, history, earlier, draft, runner, deadlineAt: scope.deadlineAt, lease, ...(input.instructions ? { instructions: input.instructions } : {}), ...(input.onEvent ? { onEvent: input.onEvent } : {}) }, budgeted.conversationUsage, scope);
      });
    }));
  }

  async function decide(input: DecideInput): Promise<TurnResult> {
    checkConversationId(input.conversationId);
    checkRequestId(input.requestId);
    checkDecisions(input.decisions);
    const model = dependencies.model;
    if (!model) throw new ModelNotConfiguredError(dependencies.modelNotConfigured);
    return start(input, (scope) => budgets.admitted({ owner: scope.key.owner, holder: scope.claimId, lease: scope.lease, refuseWhenSpent: false }, async (admission) => {
      const mcpTools = await offeredTools();
      const opened = await openApprovals({
        store,
        key: scope.key,
        requestId: scope.requestId,
        requestDigest: decideDigest(input.decisions),
        claimId: scope.claimId,
        decisions: input.decisions,
        now: now(),
        leaseExpiresAt: scope.lease.end(),
        deadline: deadlineOf(scope.deadlineAt, now),
        waitForStoreUntil: now() + ms(config.conversation.unavailableWaitSeconds),
        clock: now,
        rules,
      });
      if (opened.kind === 'replay') return opened.result;
      const { held, history, earlier, draft, waiting, state, asked } = opened;
      return keepingClaim(scope, held, (lease) => {
        const budgeted = admission.turnModel(model, { usage: draft.usage, state, usageState: () => runner.stateOf(USAGE_STATE) });
        const runner = runnerFor(scope, held.turn, mcpTools, { state, history }, budgeted.model, input.onEvent, draft);
        const decided = planDecisions(waiting, { decisions: input.decisions, asked, tools: new Map(runner.tools.map((tool) => [tool.name, tool])), route: (call) => runner.route(call) });
        input.onEvent?.({ type: 'turn-start', conversationId: input.conversationId, turn: held.turn, requestId: scope.requestId });
        return drive({ held, history, earlier, draft, decided, runner, deadlineAt: scope.deadlineAt, lease, ...(input.onEvent ? { onEvent: input.onEvent } : {}) }, budgeted.conversationUsage, scope);
      });
    }));
  }

  async function getConversation(key: ConversationKey, page: ConversationPageRequest = {}): Promise<ConversationView> {
    checkConversationId(key.conversationId);
    // The last page also shows what the extensions keep in the conversation (a todo list, a plan).
    const viewFields = (state: ConversationState) => Object.assign({}, ...extensions.map((extension) => extension.view?.(state[extension.name] ?? {}) ?? {}));
    return readConversationPage(key, page, { store, rules, hmacKey, now: now(), viewFields });
  }

  async function deleteConversation(key: ConversationKey): Promise<void> {
    checkConversationId(key.conversationId);
    if ((await store.deleteConversation(key)) === 0) throw notFound(key);
  }

  return {
    ...memoryApi(config.memory.enabled ? dependencies.notes : undefined, config.memory.maxNotes),
    ask,
    decide,
    getConversation,
    deleteConversation,
    getTurnTrace: (key, turn) => {
      checkConversationId(key.conversationId);
      return readTurnTrace(store, key, turn);
    },
    readTurn: (key, turn) => {
      checkConversationId(key.conversationId);
      return readStoredTurn({ store, key, turn, now: now(), claimId: randomUUID(), rules });
    },
    health: () => healthReport({ gateway, model: dependencies.model, modelConfig: config.model, offeredTools, logger }),
    close: () => gateway.close(),
  };
}

/** The code interpreter's sandbox and files, as far as given. */
function codeServices({ codeSandbox, codeFiles }: AgentDependencies): { codeSandbox?: CodeSandbox; codeFiles?: CodeFilesFor } {
  return { ...(codeSandbox ? { codeSandbox } : {}), ...(codeFiles ? { codeFiles } : {}) };
}

/** Model calls extensions make for the turn (an MCP server's sampling) count in its rounds and usage, as the loop's own do. */
/** A round for a model call an extension makes for the turn (MCP sampling), while maxRounds allows. */
function takeRound(draft: TurnDraft, maxRounds: number): boolean {
  if (draft.rounds >= maxRounds) return false;
  draft.rounds += 1;
  return true;
}

interface RequestScope {
  key: ConversationKey;
  requestId: string;
  claimId: string;
  deadlineAt: number;
  /** What the request holds (its turn's claim, its turn slot) is renewed under it while it runs. */
  lease: Lease;
}

const notFound = (key: ConversationKey) =>
  new NotFoundError('conversation_not_found', `There is no conversation "${key.conversationId}". Start one with POST /conversations.`);
