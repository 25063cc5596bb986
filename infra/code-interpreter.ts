import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';

/**
 * Whether agent.yml turns the code interpreter on (`codeInterpreter: true`, or settings without
 * `enabled: false`): only then do the functions carry the Python worker and Pyodide (13.5 MB).
 */
export function usesCodeInterpreter(agentConfigFile: string): boolean {
  const document = parseYaml(readFileSync(agentConfigFile, 'utf8')) as { codeInterpreter?: unknown } | null;
  const setting = document?.codeInterpreter;
  if (setting === true || setting === 'true') return true;
  if (setting === null || typeof setting !== 'object') return false;
  const enabled = (setting as { enabled?: unknown }).enabled;
  return enabled !== false && enabled !== 'false';
}
