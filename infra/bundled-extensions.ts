import { agentFile, switchedOn, variable } from './agent-file.ts';

/**
 * Which switched extensions an agent.yml turns on, read as written (the synth needs no
 * environment): only those are bundled into the functions (infra/bundling.ts). A `${VAR}` where a
 * switch is could be on, so it bundles the extension.
 */
export function bundledExtensions(agentConfigFile: string): { memory: boolean; historySummary: boolean; todoList: boolean } {
  const document = agentFile(agentConfigFile) as { memory?: unknown; history?: { strategy?: unknown }; todoList?: unknown };
  return {
    memory: switchedOn(document?.memory),
    historySummary: document?.history?.strategy === 'summarize' || variable(document?.history?.strategy),
    todoList: switchedOn(document?.todoList),
  };
}
