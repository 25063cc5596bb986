/**
 * `node infra/bundled-config.ts <agent.yml> <agent.json>`: the configuration a Lambda bundle
 * carries. The functions read JSON (JSON is YAML, and their YAML parser is JSON.parse:
 * functions/substitutes/json-only-yaml.ts), so the YAML is parsed here, once, at build time. The
 * document is kept as written, and beside it, under `$validated`, the form the schema outputs
 * (lib/config/prevalidate.ts), which the functions take without evaluating the schema: `${VAR}`
 * placeholders are still filled in from the function's own environment at cold start. A document
 * with a placeholder the schema must check (a number, a URL, ...) is validated there instead, as
 * before. A file that is not YAML, not a mapping, or invalid whatever the environment, stops the
 * synth here, with the message the function would have given.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parse } from 'yaml';
import { prevalidate } from '../lib/config/prevalidate.ts';
import { PREVALIDATED_KEY } from '../lib/config/prevalidated.ts';
import { configSchemaVersion } from './config-schema-version.ts';
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
  const validated = prevalidate(document as Record<string, unknown>, source, configSchemaVersion());
  return `${JSON.stringify(validated ? { ...document, [PREVALIDATED_KEY]: validated } : document, null, 2)}\n`;
}

if (import.meta.main) {
  const [source, target, flag] = process.argv.slice(2);
  if (!source || !target) throw new Error('usage: node infra/bundled-config.ts <agent.yml> <agent.json> [--tool-policy]');
  writeFileSync(target, bundledConfig(readFileSync(source, 'utf8'), source, { toolPolicy: flag === '--tool-policy' }));
}
