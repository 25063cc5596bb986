import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';

/**
 * An agent.yml as written, parsed once per content (the stack asks it a dozen questions: which
 * provider, which strategy, which features and doors, so which code and routes to deploy). Read as
 * written: the synth needs no environment, so a `${VAR}` is seen as text.
 */
const parsed = new Map<string, Record<string, unknown>>();
export function agentFile(agentConfigFile: string): Record<string, unknown> {
  const text = readFileSync(agentConfigFile, 'utf8');
  let document = parsed.get(text);
  if (!document) {
    const value = parseYaml(text) as unknown;
    document = value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
    parsed.set(text, document);
  }
  return document;
}

/** A `${VAR}` that agent.yml fills at start: the synth cannot know its value. */
export const variable = (value: unknown): boolean => typeof value === 'string' && value.includes('${');

/**
 * Whether a switch of agent.yml (`true`, or settings without `enabled: false`) is on. A `${VAR}`
 * could turn it on, so it counts as on: what it bundles or deploys is then there when needed.
 */
export function switchedOn(value: unknown): boolean {
  if (value === true || value === 'true' || variable(value)) return true;
  if (value === null || typeof value !== 'object') return false;
  const enabled = (value as { enabled?: unknown }).enabled;
  return enabled !== false && enabled !== 'false';
}
