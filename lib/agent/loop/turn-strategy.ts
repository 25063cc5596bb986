import type { JsonObject } from '../../core/json.ts';
import type { ExtensionRunner } from '../extension-api/extension-runner.ts';
import type { AgentExtension } from '../extension-api/extension.ts';
import type { LoopInput, LoopOutcome } from './run-loop.ts';

/**
 * How a turn's rounds are run: `react`, the plain loop of the original request, or a strategy of
 * phases (plan-execute) in which every phase is a bounded use of the same loop. The strategy gets
 * the loop input the turn would run with, and the turn's extensions for their state.
 */
export interface TurnStrategy {
  run(loop: LoopInput, turn: StrategyTurn): Promise<LoopOutcome>;
  /**
   * Extensions the strategy brings with it (plan-execute's view of its plan), run after the ones
   * agent.yml turns on and before the embedding code's own.
   */
  readonly extensions?: readonly AgentExtension[];
}

/** What a strategy may reach of the turn besides the loop: its extensions and its own state. */
export interface StrategyTurn {
  runner: ExtensionRunner;
  /** The strategy's state in the conversation (stored with the turn), under its own name. */
  state: JsonObject;
  /** True when the turn was paused and is taken up again with decisions. */
  resumed: boolean;
}
