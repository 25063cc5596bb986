import type { JsonObject } from '../../core/json.ts';
import type { AgentExtension } from '../../agent/extension-api/extension.ts';

/**
 * What a reflection strategy did in the turn (its critiques, revisions, reflections, samples), as
 * the turn result (`reflection`) and GET /conversations/{id} show it. The driver keeps the steps
 * under the strategy's state: this extension only reads them, under that name.
 */
export function reflectionViewExtension(): AgentExtension {
  const stepsOf = (state: JsonObject) => (Array.isArray(state.steps) ? state.steps : []);
  return {
    name: 'strategy',
    turnEnd: (_result, turn) => ({ reflection: stepsOf(turn.state) }),
    view: (state) => ({ reflection: stepsOf(state) }),
  };
}
