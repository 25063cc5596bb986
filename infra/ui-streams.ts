import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';

/**
 * Whether agent.yml turns the UI toolkit doors on (`uiStreams: true`, read as written: the synth
 * needs no environment; a `${VAR}` could be true, so it bundles them): only then are they bundled.
 */
export function usesUiStreams(agentConfigFile: string): boolean {
  const setting = (parseYaml(readFileSync(agentConfigFile, 'utf8')) as { uiStreams?: unknown } | null)?.uiStreams;
  return setting === true || setting === 'true' || (typeof setting === 'string' && setting.includes('${'));
}
