import { expect } from 'vitest';
import { parseConfig } from '../../lib/config/load.ts';
import { ConfigError } from '../../lib/core/errors.ts';

/** Where the configuration under test claims to come from: error messages name it. */
export const AGENT_YML_SOURCE = '/etc/agent/agent.yml';

/** agent.yml text as the service parses it, with the environment it reads. */
export const parseAgentYml = (text: string, environment: NodeJS.ProcessEnv = {}) => parseConfig(text, { source: AGENT_YML_SOURCE, environment });

/** The message of the ConfigError that agent.yml text fails with (the test fails if it does not). */
export function configFailure(text: string, environment: NodeJS.ProcessEnv = {}): string {
  try {
    parseAgentYml(text, environment);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}
