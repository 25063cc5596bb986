import type { AgentExtension } from '../../agent/extension-api/extension.ts';
import type { Plan } from './plan.ts';

/**
 * The plan of a plan-execute turn, as the turn result (`plan`) and GET /conversations/{id} show it.
 * The driver keeps it under the strategy's state: this extension only reads it, under that name.
 */
export function planViewExtension(): AgentExtension {
  const planOf = (state: { plan?: unknown }) => (state.plan as Plan | undefined) ?? null;
  return {
    name: 'strategy',
    turnEnd: (_result, turn) => ({ plan: planOf(turn.state) }),
    view: (state) => ({ plan: planOf(state) }),
  };
}
