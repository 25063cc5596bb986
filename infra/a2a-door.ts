import { agentFile, switchedOn } from './agent-file.ts';

/**
 * Whether an agent.yml turns the A2A front door on: only then are its routes declared
 * (infra/api.ts) and the door bundled (infra/bundling.ts).
 */
export const a2aDoorIsOn = (agentConfigFile: string): boolean => switchedOn(agentFile(agentConfigFile).a2a);
