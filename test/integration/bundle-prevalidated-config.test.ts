/**
 * The Lambda functions' configuration as the build writes it (infra/bundled-config.ts: agent.yml
 * pre-validated, lib/config/prevalidated.ts), read by a function's bundle in a fresh Node process:
 * the same AgentConfig as parseConfig gives from the YAML, without agent.yml's zod schemas being
 * evaluated; an agent.json from another schema version, or edited after the build, is validated in
 * full instead, by the validation the build puts beside the function. The bundles are built with
 * the functions' settings: functions/runtime.ts (what every function shares) for the repository's
 * agent.yml, and for configurations whose features the default bundle leaves out, loadConfig alone
 * (test/fixtures/load-config-entry.ts); lib/config/schema.ts is marked so the process can tell
 * whether it ran.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { build, type Plugin } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundledConfig } from '../../infra/bundled-config.ts';
import { BUNDLED_AGENT_CONFIG, BUNDLED_CONFIG_VALIDATION, PROJECT_ROOT, configValidationBuildOptions, functionBuildOptions } from '../../infra/bundling.ts';
import { configSchemaVersion } from '../../infra/config-schema-version.ts';
import { parseConfig } from '../../lib/config/load.ts';
import { ENV } from '../../lib/config/environment.ts';
import { PREVALIDATED_KEY, stampOf, type Prevalidated } from '../../lib/config/prevalidated.ts';

/** Appended to lib/config/schema.ts in the bundle: set when agent.yml's schemas are constructed. */
const markSchema: Plugin = {
  name: 'mark-agent-yml-schema',
  setup(builder) {
    builder.onLoad({ filter: /lib[\\/]config[\\/]schema\.ts$/ }, (file) => ({
      contents: `${readFileSync(file.path, 'utf8')}\n(globalThis as { agentYmlSchemaEvaluated?: boolean }).agentYmlSchemaEvaluated = true;\n`,
      loader: 'ts',
    }));
  },
};

const ENVIRONMENT = { DEMO_MCP_SERVER: 'demo-server.mjs', AWS_REGION: 'us-east-1', [ENV.conversationsTable]: 'conversations' };

let folder: string;
let runtimeBundle: string;
let configBundle: string;
let agentJson: string;

beforeAll(async () => {
  folder = mkdtempSync(path.join(tmpdir(), 'bundle-prevalidated-'));
  runtimeBundle = path.join(folder, 'index.mjs');
  configBundle = path.join(folder, 'config.mjs');
  agentJson = path.join(folder, BUNDLED_AGENT_CONFIG);
  await Promise.all([
    build({ ...functionBuildOptions(path.join(PROJECT_ROOT, 'functions/runtime.ts'), runtimeBundle), plugins: [markSchema] }),
    build({ ...functionBuildOptions(path.join(PROJECT_ROOT, 'test/fixtures/load-config-entry.ts'), configBundle), plugins: [markSchema] }),
    build({ ...configValidationBuildOptions(path.join(folder, BUNDLED_CONFIG_VALIDATION)), plugins: [markSchema] }),
  ]);
}, 120_000);

afterAll(() => {
  if (folder) rmSync(folder, { recursive: true, force: true });
});

interface Loaded {
  config?: unknown;
  error?: string;
  /** The failure is the bundle's own ConfigError (reported by the loadConfig bundle only). */
  configError?: boolean;
  schemaEvaluated: boolean;
}

/** Loads a bundle with `json` as its agent.json, as Lambda would at cold start. */
async function coldStart(json: string, environment: Record<string, string> = {}, bundle = configBundle): Promise<Loaded> {
  writeFileSync(agentJson, json);
  const script = `
    const marked = () => globalThis.agentYmlSchemaEvaluated === true;
    try {
      const { config, loadError } = await import(${JSON.stringify(bundle)});
      const result = loadError ? { error: loadError.message, configError: loadError.configError } : { config };
      process.stdout.write('\\nRESULT ' + JSON.stringify({ ...result, schemaEvaluated: marked() }) + '\\n');
    } catch (error) {
      process.stdout.write('\\nRESULT ' + JSON.stringify({ error: error.message, schemaEvaluated: marked() }) + '\\n');
    }
    process.exit(0);`;
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '--eval', script], {
    cwd: folder,
    timeout: 60_000,
    env: { PATH: process.env.PATH ?? '', POWERTOOLS_METRICS_DISABLED: 'true', POWERTOOLS_LOG_LEVEL: 'ERROR', ...ENVIRONMENT, ...environment, [ENV.agentConfig]: agentJson },
  });
  const line = stdout.split('\n').find((text) => text.startsWith('RESULT '));
  expect(line, stdout).toBeDefined();
  return JSON.parse(line!.slice('RESULT '.length)) as Loaded;
}

/** What parseConfig gives for the YAML, read as the function reads its agent.json (JSON drops undefined properties). */
const fromYaml = (yaml: string, environment: Record<string, string> = {}) =>
  JSON.parse(JSON.stringify(parseConfig(yaml, { source: agentJson, environment: { ...ENVIRONMENT, ...environment } })));

const read = (file: string) => readFileSync(path.join(PROJECT_ROOT, file), 'utf8');

/** Settings whose placeholders any text satisfies, relative paths, OAuth, a policy and defaults that transforms fill. */
const WIDE_YAML = `
maxRounds: 5
limits: { tokensPerTurn: 0 }
toolPolicy: { cedar: ./policies.cedar }
mcpServers:
  local:
    command: node
    args: ["\${SERVER_SCRIPT:-server.js}", "--flag=$$HOME"]
    env: { TOKEN: "\${LOCAL_TOKEN}" }
    cwd: "\${SERVER_FOLDER:-servers}"
    roots: [./data, "file:///srv/shared"]
    requireApproval: [delete_*]
  remote:
    url: https://tools.example.com/mcp
    headers: { X-Team: agents }
    oauth:
      grant: jwt-bearer
      clientId: agent
      assertionFile: ./token.jwt
      authorizationServer: https://login.example.com
`;

describe('a function reading the agent.json the build pre-validated', () => {
  it('gets the configuration parseConfig gives for the repository\'s agent.yml, and no module of the function evaluates the schema', async () => {
    const yaml = read('agent.yml');
    const json = bundledConfig(yaml, 'agent.yml');
    expect(JSON.parse(json)).toHaveProperty(PREVALIDATED_KEY);

    const loaded = await coldStart(json, {}, runtimeBundle);

    expect(loaded).toEqual({ config: fromYaml(yaml), schemaEvaluated: false });
  }, 60_000);

  it.each([
    ['evals/demo-agent.yml', read('evals/demo-agent.yml')],
    ['test/fixtures/per-user-agent.yml', read('test/fixtures/per-user-agent.yml')],
    ['test/fixtures/files-agent.yml', read('test/fixtures/files-agent.yml')],
    ['settings of every kind', WIDE_YAML],
  ])('gets the configuration parseConfig gives for %s, without evaluating the schema', async (_name, yaml) => {
    const json = bundledConfig(yaml, 'agent.yml');
    expect(JSON.parse(json)).toHaveProperty(PREVALIDATED_KEY);
    const environment = { LOCAL_TOKEN: 'local-token', SERVER_FOLDER: '/opt/servers' };

    const loaded = await coldStart(json, environment);

    expect(loaded).toEqual({ config: fromYaml(yaml, environment), schemaEvaluated: false });
  }, 60_000);

  it('fails on an unset variable as the full validation does', async () => {
    const yaml = 'mcpServers:\n  local:\n    command: node\n    env: { TOKEN: "${LOCAL_TOKEN}" }\n';
    const json = bundledConfig(yaml, 'agent.yml');
    expect(JSON.parse(json)).toHaveProperty(PREVALIDATED_KEY);

    const loaded = await coldStart(json);

    expect(loaded).toEqual({
      error: `${agentJson} is invalid:\n  - mcpServers.local.env.TOKEN: environment variable LOCAL_TOKEN is not set (write \${LOCAL_TOKEN:-default} to give a default)`,
      configError: true,
      schemaEvaluated: false,
    });
    expect(() => fromYaml(yaml)).toThrow(loaded.error);
  }, 60_000);
});

describe('a function reading an agent.json it cannot take as validated', () => {
  const yaml = read('agent.yml');
  const written = () => JSON.parse(bundledConfig(yaml, 'agent.yml')) as Record<string, unknown> & { [PREVALIDATED_KEY]: Prevalidated };
  const { [PREVALIDATED_KEY]: _, ...document } = written();

  it('takes the validated form when the stamp fits this build (the check is the stamp, not a second validation)', async () => {
    const json = written();
    const form = json[PREVALIDATED_KEY];
    form.file.maxRounds = 7;
    form.stamp = stampOf(configSchemaVersion(), document, form.file, form.placeholders);

    const loaded = await coldStart(JSON.stringify(json));

    expect(loaded).toMatchObject({ config: { maxRounds: 7 }, schemaEvaluated: false });
  }, 60_000);

  it('validates in full one stamped for another schema version', async () => {
    const json = written();
    const form = json[PREVALIDATED_KEY];
    form.file.maxRounds = 7;
    form.stamp = stampOf('another version', document, form.file, form.placeholders);

    const loaded = await coldStart(JSON.stringify(json));

    expect(loaded).toEqual({ config: fromYaml(yaml), schemaEvaluated: true });
  }, 60_000);

  it('validates in full one whose document was edited after the build', async () => {
    const json = { ...written(), maxRounds: 3 };

    const loaded = await coldStart(JSON.stringify(json));

    expect(loaded).toEqual({ config: { ...fromYaml(yaml), maxRounds: 3 }, schemaEvaluated: true });
  }, 60_000);

  it('fails on an invalid document it validates in full as the sources do, with this bundle\'s ConfigError', async () => {
    const json = JSON.stringify({ ...written(), maxRound: 3 });

    const loaded = await coldStart(json);

    const { [PREVALIDATED_KEY]: _validated, ...edited } = JSON.parse(json) as Record<string, unknown>;
    expect(() => parseConfig(JSON.stringify(edited), { source: agentJson, environment: ENVIRONMENT })).toThrow(loaded.error);
    expect(loaded).toMatchObject({ error: expect.stringContaining('maxRound: unknown key, did you mean "maxRounds"?'), configError: true, schemaEvaluated: true });
  }, 60_000);

  it('validates at cold start, as before, a document with a placeholder the schema must check', async () => {
    const yamlWithNumber = `${yaml}\nlimits: { tokensPerTurn: "\${TOKENS_PER_TURN:-1000}" }\n`.replace(/\nlimits:\n  tokensPerTurn: 200000\n/, '\n');
    const json = bundledConfig(yamlWithNumber, 'agent.yml');
    expect(JSON.parse(json)).not.toHaveProperty(PREVALIDATED_KEY);

    const loaded = await coldStart(json, { TOKENS_PER_TURN: '5000' });

    expect(loaded).toEqual({ config: fromYaml(yamlWithNumber, { TOKENS_PER_TURN: '5000' }), schemaEvaluated: true });
    expect(loaded.config).toMatchObject({ limits: { tokensPerTurn: 5000 } });
  }, 60_000);
});
