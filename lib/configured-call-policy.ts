/**
 * The tool policy of agent.yml (`toolPolicy`), as the agent takes it (`#call-policy` in
 * package.json): a Lambda bundle of a configuration without one leaves Cedar out
 * (functions/substitutes/without-call-policy.ts), and the stack copies the policy files and Cedar's
 * WebAssembly beside the functions of one with it (infra/bundling.ts).
 */
import { readFileSync } from 'node:fs';
import { createCedarPolicy } from './adapters/cedar/cedar-policy.ts';
import type { AgentConfig } from './config/load.ts';
import { ConfigError, errorMessage } from './core/errors.ts';
import type { CallPolicy } from './core/ports/call-policy.ts';

/** The configured policy, loaded and checked: a ConfigError (Cedar's message, at its line and column) stops the start. */
export function configuredCallPolicy(config: Pick<AgentConfig, 'toolPolicy'>): CallPolicy | undefined {
  const { cedar, schema } = config.toolPolicy;
  if (cedar === undefined) return undefined;
  return createCedarPolicy({ policies: sourceText(cedar, 'toolPolicy.cedar'), ...(schema === undefined ? {} : { schema: sourceText(schema, 'toolPolicy.schema') }) });
}

function sourceText(path: string, key: string): { text: string; source: string } {
  try {
    return { text: readFileSync(path, 'utf8'), source: path };
  } catch (error) {
    throw new ConfigError(`${key}: cannot read ${path}: ${errorMessage(error)}`, { cause: error });
  }
}
