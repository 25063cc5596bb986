/**
 * `model.auth: sigv4` for Bedrock's OpenAI-compatible endpoints: what the openai provider needs
 * then (an endpoint and a region, no key), and the scope it signs for: `bedrock` for
 * bedrock-runtime's `/openai/v1`, `bedrock-mantle` for the Mantle endpoint.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { signingServiceFor } from '../../lib/adapters/openai/bedrock-endpoints.ts';
import { createSigV4Signer } from '../../lib/adapters/openai/sigv4.ts';
import { silentLogger } from '../../lib/core/logger.ts';
import { createConfiguredModel, modelNotConfigured, modelProvider } from '../../lib/providers/configured-model.ts';
import { configFailure, parseAgentYml } from '../support/agent-yml.ts';
import { signatureProblem } from '../support/sigv4-check.ts';

const RUNTIME_URL = 'https://bedrock-runtime.eu-central-1.amazonaws.com/openai/v1';
const MANTLE_URL = 'https://bedrock-mantle.eu-central-1.api.aws/v1';
const CREDENTIALS = { accessKeyId: 'AKIDSIGV4UNIT0000000', secretAccessKey: 'sigv4-unit-secret-0123456789' };

afterEach(() => vi.unstubAllEnvs());

describe('model.auth', () => {
  it('is key by default; sigv4 takes the region from model.region, else AWS_REGION', () => {
    expect(parseAgentYml('').model.auth).toBe('key');
    expect(parseAgentYml('model: { auth: sigv4 }', { AWS_REGION: 'eu-central-1', OPENAI_BASE_URL: RUNTIME_URL }).model).toMatchObject({ auth: 'sigv4', region: 'eu-central-1', baseURL: RUNTIME_URL });
    expect(parseAgentYml('model: { auth: sigv4, region: us-west-2 }', { AWS_REGION: 'eu-central-1' }).model.region).toBe('us-west-2');
    expect(configFailure('model: { auth: iam }')).toContain('model.auth');
  });

  it.each([
    ['no endpoint of its own', {}, /model.auth is sigv4 but the endpoint is OpenAI's.*OPENAI_BASE_URL.*bedrock-runtime\.<region>\.amazonaws\.com\/openai\/v1.*bedrock-mantle\.<region>\.api\.aws\/v1/],
    ['no region', { OPENAI_BASE_URL: RUNTIME_URL }, /No AWS region to sign for.*AWS_REGION \(or model.region/],
  ])('says what sigv4 lacks with %s (not an API key), and builds no model', (_case, environment, message) => {
    const settings = parseAgentYml('model: { auth: sigv4 }', environment).model;

    expect(modelNotConfigured(settings, environment)).toMatch(message);
    expect(modelNotConfigured(settings, environment)).not.toContain('OPENAI_API_KEY');
    expect(createConfiguredModel(settings, { logger: silentLogger, environment })).toBeUndefined();
  });

  it('builds the openai model signed with SigV4 from an endpoint and a region, with no key', () => {
    const environment = { OPENAI_BASE_URL: MANTLE_URL, AWS_REGION: 'eu-central-1' };
    const settings = parseAgentYml('model: { auth: sigv4, name: openai.gpt-oss-120b }', environment).model;

    expect(modelNotConfigured(settings, environment)).toBeUndefined();
    expect(createConfiguredModel(settings, { logger: silentLogger, environment })).toHaveProperty('complete');
    expect(modelProvider(settings).describe(settings)).toBe(`openai.gpt-oss-120b at ${MANTLE_URL} (signed with SigV4 for bedrock-mantle in eu-central-1)`);
  });
});

describe('signingServiceFor', () => {
  it.each([
    [RUNTIME_URL, 'bedrock'],
    [MANTLE_URL, 'bedrock-mantle'],
    ['https://bedrock-mantle.us-east-1.api.aws/openai/v1', 'bedrock-mantle'],
    ['https://vpce-0abc-1234.bedrock-runtime.us-east-1.vpce.amazonaws.com/openai/v1', 'bedrock'],
    ['http://127.0.0.1:8080/v1', 'bedrock'],
  ])('signs requests to %s for %s', (baseURL, service) => {
    expect(signingServiceFor(baseURL)).toBe(service);
  });
});

describe('createSigV4Signer', () => {
  it('signs a Mantle request so that a SigV4 check for bedrock-mantle in its region accepts it', async () => {
    vi.stubEnv('AWS_ACCESS_KEY_ID', CREDENTIALS.accessKeyId);
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', CREDENTIALS.secretAccessKey);
    const url = `${MANTLE_URL}/chat/completions`;
    const body = JSON.stringify({ model: 'openai.gpt-oss-120b', messages: [{ role: 'user', content: '上海天气' }] });
    const headers = { 'content-type': 'application/json', accept: 'application/json' };

    const signed = await createSigV4Signer({ baseURL: MANTLE_URL, region: 'eu-central-1' })({ url, method: 'POST', headers, body });

    const arrived = { method: 'POST', path: new URL(url).pathname, headers: { ...headers, ...signed, host: new URL(url).host }, body: Buffer.from(body) };
    expect(signed).not.toHaveProperty('host');
    expect(signatureProblem(arrived, CREDENTIALS, { service: 'bedrock-mantle', region: 'eu-central-1' })).toBeUndefined();
    expect(signatureProblem(arrived, CREDENTIALS, { service: 'bedrock', region: 'eu-central-1' })).toContain("'bedrock', not 'bedrock-mantle'");
  });
});
