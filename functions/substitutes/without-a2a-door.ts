/**
 * Stands in for the A2A front door (`#a2a-door`: lib/front-doors/a2a/door.ts, with @a2a-js/sdk) in
 * the Lambda bundles of a configuration that leaves `a2a` off (infra/bundling.ts,
 * functionSubstitutes). A function that finds it on anyway fails its cold start, saying why.
 */
import type { FrontDoor } from '../../lib/http/front-door.ts';

export type { A2ASettings } from '../../lib/front-doors/a2a/agent-card.ts';

export function a2aFrontDoor(): FrontDoor {
  throw new Error('bundled without the A2A front door: deploy again with the a2a settings of agent.yml');
}
