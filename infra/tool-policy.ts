import { existsSync } from 'node:fs';
import path from 'node:path';
import { agentFile } from './agent-file.ts';

/** The tool policy's files, as absolute paths: the Cedar policies and, optionally, their schema. */
export interface ToolPolicyFiles {
  cedar: string;
  schema?: string;
}

/** Cedar's WebAssembly, beside the function's code, where lib/adapters/cedar/engine.ts (CEDAR_WASM_FILE) looks first. */
export const CEDAR_WASM_FILE = 'cedar_wasm_bg.wasm';

/** Where the files go in a bundle, beside agent.json, which the bundle's agent.json then names. */
export const BUNDLED_TOOL_POLICY = { cedar: 'tool-policy.cedar', schema: 'tool-policy.cedarschema' } as const;

/**
 * The files of agent.yml's `toolPolicy` (relative to agent.yml), read as written: only a stack with
 * a policy bundles Cedar (infra/bundling.ts), and its functions carry the files beside agent.json.
 * A path the synth cannot know (a `${VAR}`), or a file that is not there, stops the synth.
 */
export function toolPolicyFiles(agentConfigFile: string): ToolPolicyFiles | undefined {
  const document = agentFile(agentConfigFile) as { toolPolicy?: { cedar?: unknown; schema?: unknown } };
  const policy = document?.toolPolicy;
  if (policy?.cedar === undefined) return undefined;
  const file = (key: 'cedar' | 'schema', value: unknown): string => {
    if (typeof value !== 'string' || value.includes('${')) throw new Error(`toolPolicy.${key} in ${agentConfigFile} must be a path written out, to be bundled with the functions`);
    const resolved = path.resolve(path.dirname(agentConfigFile), value);
    if (!existsSync(resolved)) throw new Error(`toolPolicy.${key}: ${resolved} does not exist (paths are relative to ${agentConfigFile})`);
    return resolved;
  };
  return { cedar: file('cedar', policy.cedar), ...(policy.schema === undefined ? {} : { schema: file('schema', policy.schema) }) };
}
