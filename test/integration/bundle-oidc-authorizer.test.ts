/**
 * The OIDC authorizer bundled as the stack bundles it (infra/bundling.ts, authorizerBundling: its
 * own entry, esbuild alone), loaded in a fresh Node process with only its environment, and invoked
 * with API Gateway's TOKEN event against a local OIDC provider: small, without the agent, and
 * answering as the source does.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { build, type Metafile } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { esbuildBuildOptions, OIDC_AUTHORIZER_ENTRY, PROJECT_ROOT } from '../../infra/bundling.ts';
import { startOidcProvider, type OidcProvider } from '../support/oidc-provider.ts';

const AUDIENCE = 'api://mcp-agent';
const fixture = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'test/fixtures/apigateway/token-authorizer.json'), 'utf8'));

let folder: string;
let bundle: string;
let metafile: Metafile;
let provider: OidcProvider;

beforeAll(async () => {
  folder = mkdtempSync(path.join(tmpdir(), 'bundle-oidc-authorizer-'));
  bundle = path.join(folder, 'index.mjs');
  ({ metafile } = await build({ ...esbuildBuildOptions(path.join(PROJECT_ROOT, OIDC_AUTHORIZER_ENTRY), bundle), metafile: true }));
  provider = await startOidcProvider({ audience: AUDIENCE });
}, 120_000);

afterAll(async () => {
  await provider?.close();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

/** Each event through the bundle's handler in a new process: its result, or the message it threw. */
async function invokeBundle(events: unknown[]): Promise<unknown[]> {
  const script = `
    const bundle = await import(${JSON.stringify(bundle)});
    const answers = [];
    for (const event of JSON.parse(process.env.TEST_EVENTS)) {
      try { answers.push(await bundle.handler(event)); } catch (error) { answers.push({ threw: error.message }); }
    }
    process.stdout.write('\\nRESULT ' + JSON.stringify(answers) + '\\n');`;
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '--eval', script], {
    cwd: folder,
    timeout: 60_000,
    env: { PATH: process.env.PATH, OIDC_ISSUER: provider.issuer, OIDC_AUDIENCE: AUDIENCE, POWERTOOLS_LOG_LEVEL: 'SILENT', TEST_EVENTS: JSON.stringify(events) },
  });
  return JSON.parse(stdout.split('\nRESULT ')[1]!) as unknown[];
}

describe('the OIDC authorizer bundle', () => {
  it('is small and holds the verifier, not the agent', () => {
    expect(statSync(bundle).size).toBeLessThan(120_000);
    const inputs = Object.keys(metafile.inputs);
    expect(inputs.some((file) => file.includes('node_modules/jose/'))).toBe(true);
    expect(inputs.filter((file) => /^lib\/(agent|front-doors|http|adapters\/(mcp|dynamodb))\//.test(file))).toEqual([]);
  });

  it('allows a valid token with its sub and claims, and answers Unauthorized to a forged one', async () => {
    const valid = await provider.sign({ sub: 'alice-sub-1', groups: ['support'] });
    const forged = await provider.sign({ sub: 'alice-sub-1' }, { unpublishedKey: true });

    const [allowed, refused] = await invokeBundle([
      { ...fixture, authorizationToken: `Bearer ${valid}` },
      { ...fixture, authorizationToken: `Bearer ${forged}` },
    ]);

    expect(allowed).toMatchObject({ principalId: 'alice-sub-1', policyDocument: { Statement: [{ Effect: 'Allow' }] }, context: { groups: 'support', sub: 'alice-sub-1' } });
    expect(refused).toEqual({ threw: 'Unauthorized' });
  });
});
