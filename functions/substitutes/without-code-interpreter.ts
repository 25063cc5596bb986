/**
 * Stands in for the code interpreter (`#code-interpreter`: lib/extensions/code-interpreter/configured.ts,
 * and `#python-sandbox`: lib/adapters/python/sandbox.ts) in the Lambda bundles of a configuration
 * without it (infra/bundling.ts, functionSubstitutes). A function that finds it on anyway fails its
 * cold start, saying why.
 */
import type { AgentExtension } from '../../lib/agent/extension-api/extension.ts';
import type { CodeSandbox } from '../../lib/core/ports/code-sandbox.ts';

const NOT_BUNDLED = 'bundled without the code interpreter: deploy again with codeInterpreter on in agent.yml';

export function configuredCodeInterpreter(): AgentExtension {
  throw new Error(NOT_BUNDLED);
}

export function createPythonSandbox(): CodeSandbox {
  throw new Error(NOT_BUNDLED);
}
