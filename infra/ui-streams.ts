import { agentFile, switchedOn } from './agent-file.ts';

/** Whether agent.yml turns the UI toolkit doors on (`uiStreams: true`): only then are they bundled. */
export const usesUiStreams = (agentConfigFile: string): boolean => switchedOn(agentFile(agentConfigFile).uiStreams);
