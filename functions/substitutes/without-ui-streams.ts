/**
 * Stands in for the UI toolkit doors (`#ui-streams`: lib/front-doors/ui-streams.ts) in the Lambda
 * bundles of a configuration that leaves `uiStreams` off (infra/bundling.ts, functionSubstitutes).
 * A function that finds them configured anyway fails its cold start, saying why.
 */
import type { FrontDoor } from '../../lib/http/front-door.ts';

export function uiStreamFrontDoors(): FrontDoor[] {
  throw new Error('bundled without the UI stream doors: deploy again with uiStreams: true in agent.yml');
}
