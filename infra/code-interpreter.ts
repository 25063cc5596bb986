import { agentFile, switchedOn } from './agent-file.ts';

/**
 * Whether agent.yml turns the code interpreter on (`codeInterpreter: true`, or settings without
 * `enabled: false`): only then do the functions carry the Python worker and Pyodide (13.5 MB).
 */
export const usesCodeInterpreter = (agentConfigFile: string): boolean => switchedOn(agentFile(agentConfigFile).codeInterpreter);
