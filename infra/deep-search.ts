import { agentFile, switchedOn } from './agent-file.ts';

/**
 * Whether agent.yml turns deep search on (`deepSearch` settings without `enabled: false`): only
 * then do the functions carry it (lib/extensions/deep-search).
 */
export const usesDeepSearch = (agentConfigFile: string): boolean => switchedOn(agentFile(agentConfigFile).deepSearch);
