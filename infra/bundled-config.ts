/**
 * `node infra/bundled-config.ts <agent.yml> <agent.json>`: the configuration a Lambda bundle
 * carries. The functions read JSON (JSON is YAML, and their YAML parser is JSON.parse:
 * functions/substitutes/json-only-yaml.ts), so the YAML is parsed here, once, at build time. The
 * document is kept as written: `${VAR}` placeholders are still filled in, and the whole validated,
 * from the function's own environment at cold start. A file that is not YAML, or not a mapping,
 * stops the synth here.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parse } from 'yaml';
import { BUNDLED_TOOL_POLICY } from './tool-policy.ts';

/**
 * `toolPolicy`: the bundle carries the policy files beside agent.json under fixed names
 * (infra/tool-policy.ts), so its agent.json names those.
 */
export function bundledConfig(yamlText: string, source: string, options: { toolPolicy?: boolean } = {}): string {
  let document: unknown;
  try {
    document = parse(yamlText) ?? {};
  } catch (error) {
    throw new Error(`${source} is not valid YAML: ${(error as Error).message}`, { cause: error });
  }
  if (typeof document !== 'object' || Array.isArray(document)) throw new Error(`${source} must be a YAML mapping of keys (systemPrompt, maxRounds, model, mcpServers, ...)`);
  const policy = (document as { toolPolicy?: { schema?: unknown } }).toolPolicy;
  if (options.toolPolicy && policy) {
    (document as { toolPolicy: object }).toolPolicy = { cedar: `./${BUNDLED_TOOL_POLICY.cedar}`, ...(policy.schema === undefined ? {} : { schema: `./${BUNDLED_TOOL_POLICY.schema}` }) };
  }
  return `${JSON.stringify(document, null, 2)}\n`;
}

if (import.meta.main) {
  const [source, target, flag] = process.argv.slice(2);
  if (!source || !target) throw new Error('usage: node infra/bundled-config.ts <agent.yml> <agent.json> [--tool-policy]');
  writeFileSync(target, bundledConfig(readFileSync(source, 'utf8'), source, { toolPolicy: flag === '--tool-policy' }));
}
