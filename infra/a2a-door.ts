import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';

/**
 * Whether an agent.yml turns the A2A front door on, read as written (the synth needs no
 * environment): only then are its routes declared (infra/api.ts) and the door bundled
 * (infra/bundling.ts). A `${VAR}` could be either, so it counts as on.
 */
export function a2aDoorIsOn(agentConfigFile: string): boolean {
  const document = parseYaml(readFileSync(agentConfigFile, 'utf8')) as { a2a?: unknown } | null;
  const setting = document?.a2a;
  if (setting === true || setting === 'true') return true;
  if (typeof setting === 'string') return setting.includes('${');
  if (setting === null || typeof setting !== 'object') return false;
  const enabled = (setting as { enabled?: unknown }).enabled;
  return enabled !== false && enabled !== 'false';
}
