import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';

/**
 * Which switched extensions an agent.yml turns on, read as written (the synth needs no
 * environment): only those are bundled into the functions (infra/bundling.ts). A `${VAR}` where a
 * switch is could be on, so it bundles the extension.
 */
export function bundledExtensions(agentConfigFile: string): { memory: boolean; historySummary: boolean; todoList: boolean } {
  const document = parseYaml(readFileSync(agentConfigFile, 'utf8')) as { memory?: unknown; history?: { strategy?: unknown }; todoList?: unknown } | null;
  return {
    memory: switchedOn(document?.memory),
    historySummary: document?.history?.strategy === 'summarize' || variable(document?.history?.strategy),
    todoList: switchedOn(document?.todoList),
  };
}

const variable = (value: unknown) => typeof value === 'string' && value.includes('${');

/** `true`, `'true'`, a variable, or settings without `enabled: false`. */
function switchedOn(value: unknown): boolean {
  if (value === true || value === 'true' || variable(value)) return true;
  if (value === null || typeof value !== 'object') return false;
  const enabled = (value as { enabled?: unknown }).enabled;
  return enabled !== false && enabled !== 'false';
}
