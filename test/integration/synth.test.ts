/**
 * `npx cdk synth`, the documented command, run as a user runs it (offline, the pinned CLI reading
 * the pinned aws-cdk-lib's output), with real bundling by the local esbuild. Docker is pointed at a
 * path that does not exist, so a fallback to Docker bundling would fail the synth. Then the bundles
 * themselves: what each asset holds, that every file parses, that the demo server serves, and that
 * each function loads with its template environment and the health function answers.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { DEMO_TOOLS } from '../../lib/demo/tools.ts';
import { PREVALIDATED_KEY } from '../../lib/config/prevalidated.ts';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SYNTH_TIMEOUT_MS = 240_000;
const OFFLINE = {
  CDK_DISABLE_VERSION_CHECK: '1',
  CDK_DISABLE_CLI_TELEMETRY: 'true',
  AWS_EC2_METADATA_DISABLED: 'true',
  CDK_DOCKER: '/nonexistent/docker-must-not-be-used',
};

interface LambdaFunction {
  name: string;
  assetDirectory: string;
  environment: Record<string, unknown>;
}

let outdir: string;
let functions: LambdaFunction[];

beforeAll(async () => {
  outdir = mkdtempSync(path.join(tmpdir(), 'cdk-synth-'));
  await run('npx', ['cdk', 'synth', '--no-notices', '--quiet', '--output', outdir], {
    cwd: ROOT,
    env: { ...process.env, ...OFFLINE },
    timeout: SYNTH_TIMEOUT_MS,
    maxBuffer: 64 * 1024 * 1024,
  });
  const template = JSON.parse(readFileSync(path.join(outdir, 'McpAgent.template.json'), 'utf8'));
  functions = Object.entries(template.Resources as Record<string, { Type: string; Metadata: Record<string, string>; Properties: Record<string, any> }>)
    .filter(([, resource]) => resource.Type === 'AWS::Lambda::Function')
    .map(([logicalId, resource]) => ({
      name: logicalId.replace(/^Functions(\w+?)Function[0-9A-F]{8}$/, '$1'),
      assetDirectory: path.join(outdir, resource.Metadata['aws:asset:path']!),
      environment: resource.Properties.Environment.Variables,
    }));
}, SYNTH_TIMEOUT_MS + 30_000);

afterAll(() => {
  if (outdir) rmSync(outdir, { recursive: true, force: true });
});

/**
 * Every function bundle's bound, kept close above the largest measured so that what the lean AWS
 * clients, the build-time validation of agent.yml and Ajv's move beside the bundle took out (about
 * 360 KB) does not creep back: on an OpenAI-compatible model the worker's 624,579 B (2026-11-27,
 * with EventBridge and SQS); on Bedrock, which adds the Bedrock Runtime client, @smithy/core's event
 * streams and REST-JSON protocol and the HTTP/2 handler (docs/deploying.md, "Bundle sizes"), the
 * worker's 700,416 B.
 */
const BUNDLE_BUDGET = 660_000;
const BEDROCK_BUNDLE_BUDGET = 740_000;

const functionNamed = (name: string): LambdaFunction => functions.find((fn) => fn.name === name)!;

describe('npx cdk synth', () => {
  it('synthesizes the three functions, each from its own bundle', () => {
    expect(functions.map((fn) => fn.name).sort()).toEqual(['HealthAndFallbacks', 'Stream', 'Worker']);
    expect(new Set(functions.map((fn) => fn.assetDirectory)).size).toBe(3);
  });

  it.each(['HealthAndFallbacks', 'Stream', 'Worker'])('puts the %s handler, agent.yml as JSON (pre-validated), its validation, Ajv and the demo server in the bundle, and no source map', (name) => {
    const { assetDirectory } = functionNamed(name);
    expect(readdirSync(assetDirectory).sort()).toEqual(['agent.json', 'ajv-compilers.cjs', 'config-validation.cjs', 'demo-server.mjs', 'index.mjs']);
    const { [PREVALIDATED_KEY]: validated, ...bundled } = JSON.parse(readFileSync(path.join(assetDirectory, 'agent.json'), 'utf8'));
    expect(bundled).toEqual(parseYaml(readFileSync(path.join(ROOT, 'agent.yml'), 'utf8')));
    expect(validated).toMatchObject({ placeholders: [['mcpServers', 'demo', 'args', 0]] });
  });

  it.each(['HealthAndFallbacks', 'Stream', 'Worker'])('emits %s code that Node parses as ESM with a require() for CommonJS packages', async (name) => {
    const { assetDirectory } = functionNamed(name);
    for (const file of ['index.mjs', 'demo-server.mjs']) {
      const code = readFileSync(path.join(assetDirectory, file), 'utf8');
      expect(code.startsWith("import { createRequire } from 'module'; const require = createRequire(import.meta.url);")).toBe(true);
      await run(process.execPath, ['--check', path.join(assetDirectory, file)]);
    }
  });

  it('bundles the AWS SDK into the functions rather than relying on the runtime copy', () => {
    const code = readFileSync(path.join(functionNamed('Stream').assetDirectory, 'index.mjs'), 'utf8');
    expect(code).not.toMatch(/from\s*"@aws-sdk\//);
    expect(code).toContain('dynamodb');
  });
});

describe('node infra/bundle-size.ts', () => {
  it('reports the sizes of exactly the bundles the synth built', async () => {
    const { stdout } = await run(process.execPath, [path.join(ROOT, 'infra/bundle-size.ts'), '--json'], { cwd: ROOT, timeout: 120_000 });
    const sizes = JSON.parse(stdout) as { name: string; minifiedBytes: number; gzipBytes: number }[];
    const sizeOf = (file: string) => statSync(file).size;
    const healthAndFallbacks = functionNamed('HealthAndFallbacks').assetDirectory;
    // The synth here is of the default stack (an OpenAI-compatible model); the Bedrock variants are measured beside it.
    expect(sizes.filter(({ name }) => !name.endsWith(' (bedrock)')).map(({ name, minifiedBytes }) => [name, minifiedBytes])).toEqual([
      ['healthAndFallbacks', sizeOf(path.join(healthAndFallbacks, 'index.mjs'))],
      ['stream', sizeOf(path.join(functionNamed('Stream').assetDirectory, 'index.mjs'))],
      ['worker', sizeOf(path.join(functionNamed('Worker').assetDirectory, 'index.mjs'))],
      ['demo-server', sizeOf(path.join(healthAndFallbacks, 'demo-server.mjs'))],
    ]);
    for (const size of sizes) expect(size.gzipBytes).toBeLessThan(size.minifiedBytes / 2);
  });

  it('keeps every function bundle within 660 KB (740 KB on Bedrock), without the packages the functions get in a smaller form', async () => {
    const { stdout } = await run(process.execPath, [path.join(ROOT, 'infra/bundle-size.ts'), '--json', '--packages'], { cwd: ROOT, timeout: 120_000 });
    const sizes = JSON.parse(stdout) as { name: string; minifiedBytes: number; packages: { source: string; bytes: number }[] }[];
    expect(sizes.map(({ name }) => name)).toEqual(expect.arrayContaining(['stream', 'worker', 'stream (bedrock)', 'worker (bedrock)', 'healthAndFallbacks (bedrock)']));
    for (const size of sizes.filter(({ name }) => name !== 'demo-server')) {
      const bedrock = size.name.endsWith(' (bedrock)');
      expect(size.minifiedBytes, size.name).toBeLessThanOrEqual(bedrock ? BEDROCK_BUNDLE_BUDGET : BUNDLE_BUDGET);
      const sources = size.packages.map(({ source }) => source);
      for (const absent of ['yaml', '@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb', '@aws-sdk/client-secrets-manager', '@aws-sdk/client-ssm', '@aws-sdk/credential-provider-node', '@aws-sdk/nested-clients', 'aws-xray-sdk-core', 'jose', 'ajv-formats', 'cross-spawn', 'mnemonist', '@opentelemetry/api', '@opentelemetry/sdk-trace', '@opentelemetry/sdk-metrics', '@modelcontextprotocol/server']) expect(sources, size.name).not.toContain(absent);
      // Ajv is beside the function (ajv-compilers.cjs), loaded only for a schema outside the interpreter's subset.
      for (const absent of ['ajv', 'fast-uri']) expect(sources, size.name).not.toContain(absent);
      expect(sources, size.name).toContain('functions/substitutes');
      // Only the configured provider's SDK: on Bedrock, what is left of `openai` is the error class
      // the shared retry rules know (lib/adapters/openai/retry.ts), and no SSO OIDC client.
      const bytesOf = (source: string) => size.packages.find((entry) => entry.source === source)?.bytes ?? 0;
      if (bedrock) expect(bytesOf('openai'), size.name).toBeLessThan(2_000);
      else expect(sources, size.name).not.toContain('@aws-sdk/client-bedrock-runtime');
    }
  });
});

describe('the bundled demo MCP server', () => {
  it('serves the four demo tools over stdio', async () => {
    const client = new Client({ name: 'synth-test', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [path.join(functionNamed('HealthAndFallbacks').assetDirectory, 'demo-server.mjs')], stderr: 'ignore' }));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(DEMO_TOOLS.map((tool) => tool.name));
    } finally {
      await client.close();
    }
  });
});

/**
 * Loads a bundle in a fresh Node process as Lambda would: its directory as the working directory
 * and /var/task, the template's environment (references to other resources left out, so no AWS
 * call is made), and optionally invokes the handler with one event.
 */
async function loadBundle(fn: LambdaFunction, event?: unknown): Promise<{ handler: string; response?: { statusCode: number; body: string } }> {
  const environment: Record<string, string> = {};
  for (const [name, value] of Object.entries(fn.environment)) {
    if (typeof value === 'string') environment[name] = value.replace(/^\/var\/task(?=\/|$)/, fn.assetDirectory);
  }
  const script = `
    const bundle = await import(${JSON.stringify(path.join(fn.assetDirectory, 'index.mjs'))});
    const result = { handler: typeof bundle.handler };
    if (process.env.TEST_EVENT) {
      const context = { awsRequestId: 'synth-test', functionName: 'synth-test', functionVersion: '$LATEST', memoryLimitInMB: '512',
        invokedFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:synth-test', getRemainingTimeInMillis: () => 25000 };
      result.response = await bundle.handler(JSON.parse(process.env.TEST_EVENT), context);
    }
    await bundle.agent.close();
    process.stdout.write('\\nRESULT ' + JSON.stringify(result) + '\\n');
    process.exit(0);`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '--eval', script], {
    cwd: fn.assetDirectory,
    timeout: 60_000,
    env: {
      PATH: process.env.PATH ?? '',
      ...environment,
      AWS_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
      POWERTOOLS_METRICS_DISABLED: 'true',
      POWERTOOLS_LOG_LEVEL: 'ERROR',
      ...(event === undefined ? {} : { TEST_EVENT: JSON.stringify(event) }),
    },
  });
  const line = stdout.split('\n').find((text) => text.startsWith('RESULT '));
  expect(line, stdout).toBeDefined();
  return JSON.parse(line!.slice('RESULT '.length));
}

describe('the function bundles', () => {
  it.each(['HealthAndFallbacks', 'Stream', 'Worker'])('%s loads with its template environment and exports handler', async (name) => {
    expect((await loadBundle(functionNamed(name))).handler).toBe('function');
  });

  it('answers GET /health from the health-and-fallbacks bundle with the bundled demo server connected', async () => {
    const fixture = JSON.parse(readFileSync(path.join(ROOT, 'test/fixtures/apigateway/rest-proxy-iam.json'), 'utf8'));
    const event = { ...fixture, resource: '/health', path: '/health', httpMethod: 'GET', body: null, pathParameters: null };
    const { response } = await loadBundle(functionNamed('HealthAndFallbacks'), event);
    expect(response?.statusCode).toBe(200);
    const health = JSON.parse(response!.body);
    expect(health.mcpServers).toEqual([expect.objectContaining({ name: 'demo', status: 'connected', toolCount: DEMO_TOOLS.length })]);
    expect(health.tools).toBe(DEMO_TOOLS.length);
  });
});
