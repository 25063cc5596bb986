import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';

/**
 * Whether agent.yml turns deep search on (`deepSearch` settings without `enabled: false`): only
 * then do the functions carry it (lib/extensions/deep-search).
 */
export function usesDeepSearch(agentConfigFile: string): boolean {
  const document = parseYaml(readFileSync(agentConfigFile, 'utf8')) as { deepSearch?: unknown } | null;
  const setting = document?.deepSearch;
  if (setting === true || setting === 'true' || (typeof setting === 'string' && setting.includes('${'))) return true;
  if (setting === null || typeof setting !== 'object') return false;
  const enabled = (setting as { enabled?: unknown }).enabled;
  return enabled !== false && enabled !== 'false';
}
