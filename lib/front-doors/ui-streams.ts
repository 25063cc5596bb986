import type { FrontDoor } from '../http/front-door.ts';
import { agUiFrontDoor } from './ag-ui/door.ts';
import { aiSdkUiFrontDoor } from './ai-sdk-ui/door.ts';

/**
 * The doors for UI toolkits (agent.yml `uiStreams: true`, docs/ui-streams.md): the AI SDK's UI
 * message stream at /ui/ai-sdk/chat and AG-UI at /ui/ag-ui. Imported as `#ui-streams`, so a
 * function whose agent.yml leaves them off is bundled without them.
 */
export function uiStreamFrontDoors(): FrontDoor[] {
  return [aiSdkUiFrontDoor, agUiFrontDoor];
}
