import type { AgentConfig } from '../config/load.ts';
import { ms } from '../core/time.ts';
import type { LoopLimits } from './loop/run-loop.ts';
import type { TurnRules } from './turn/open-turn.ts';

/** What a turn's life reads of agent.yml, in the units the code uses (ms), worked out once. */
export interface AgentSettings {
  rules: TurnRules;
  limits: LoopLimits;
  systemPrompt: string;
  approvalTtlMs: number;
  /** How long a request that has run nothing waits for an unavailable store. */
  storeWaitMs: number;
  turnTimeoutMs: number;
  leaseMs: number;
  leaseMarginMs: number;
  reserveMs: number;
  logPayloads: boolean;
}

export function agentSettings(config: AgentConfig): AgentSettings {
  const { tools } = config;
  return {
    rules: { maxRounds: config.maxRounds, historyTokenBudget: config.history.maxTokens, approvalTtlSeconds: config.approvals.ttlSeconds },
    limits: {
      maxRounds: config.maxRounds,
      modelTimeoutMs: ms(config.model.timeoutSeconds),
      toolTimeoutMs: ms(tools.callTimeoutSeconds),
      maxToolCallMs: ms(tools.maxCallSeconds),
      maxOutputChars: tools.maxOutputChars,
      maxTurnOutputChars: tools.maxTurnOutputChars,
      maxCallsPerRound: tools.maxCallsPerRound,
      maxCallsPerTurn: tools.maxCallsPerTurn,
      maxConcurrentCalls: tools.maxConcurrentCalls,
      reserveMs: ms(config.turn.reserveSeconds),
    },
    systemPrompt: config.systemPrompt,
    approvalTtlMs: ms(config.approvals.ttlSeconds),
    storeWaitMs: ms(config.conversation.unavailableWaitSeconds),
    turnTimeoutMs: ms(config.turn.timeoutSeconds),
    leaseMs: ms(config.turn.leaseSeconds),
    leaseMarginMs: ms(config.turn.leaseMarginSeconds),
    reserveMs: ms(config.turn.reserveSeconds),
    logPayloads: config.logging.logPayloads,
  };
}
