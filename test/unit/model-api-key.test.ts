import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { mockClient } from 'aws-sdk-client-mock';
import { secretReaderFromClient } from '../../lib/adapters/aws/secret-reader.ts';
import { afterEach, describe, expect, it } from 'vitest';
import { readModelApiKey } from '../../lib/adapters/aws/model-api-key.ts';
import { ConfigError } from '../../lib/core/errors.ts';

const secretsManager = mockClient(SecretsManagerClient);
const ssm = mockClient(SSMClient);
const clients = { readSecret: secretReaderFromClient(() => new SecretsManagerClient({ region: 'eu-west-1' })), ssm: () => new SSMClient({ region: 'eu-west-1' }) };
const secretArn = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:mcp-agent/model-api-key-AbCdEf';

afterEach(() => {
  secretsManager.reset();
  ssm.reset();
});

describe('readModelApiKey', () => {
  it.each([
    ['a plain secret string', 'sk-plain'],
    ['JSON with apiKey', '{"apiKey": "sk-json"}'],
    ['JSON with OPENAI_API_KEY', '{"OPENAI_API_KEY": "sk-env-style"}'],
  ])('reads the key from %s in Secrets Manager', async (_, secretString) => {
    secretsManager.on(GetSecretValueCommand, { SecretId: secretArn }).resolves({ SecretString: secretString });
    const key = await readModelApiKey({ ...clients, secretId: secretArn });
    expect(key).toMatch(/^sk-/);
    expect(secretsManager.commandCalls(GetSecretValueCommand)).toHaveLength(1);
  });

  it('reads a SecureString parameter with decryption', async () => {
    ssm.on(GetParameterCommand, { Name: '/mcp-agent/model-api-key', WithDecryption: true }).resolves({ Parameter: { Value: 'sk-from-ssm\n' } });
    await expect(readModelApiKey({ ...clients, parameterName: '/mcp-agent/model-api-key' })).resolves.toBe('sk-from-ssm');
  });

  it('returns undefined without a source and calls nothing', async () => {
    await expect(readModelApiKey(clients)).resolves.toBeUndefined();
    expect(secretsManager.calls()).toHaveLength(0);
    expect(ssm.calls()).toHaveLength(0);
  });

  it.each([
    ['an empty secret', ''],
    ['the placeholder the stack creates', '{"apiKey":""}'],
  ])('treats %s as no key yet, so the service runs and says how to configure one', async (_, secretString) => {
    secretsManager.on(GetSecretValueCommand).resolves({ SecretString: secretString });
    await expect(readModelApiKey({ ...clients, secretId: secretArn })).resolves.toBeUndefined();
  });

  it.each([
    ['JSON without a key field', () => secretsManager.on(GetSecretValueCommand).resolves({ SecretString: '{"token": "x"}' }), /without an "apiKey"/],
    ['a secret it may not read', () => secretsManager.on(GetSecretValueCommand).rejects(Object.assign(new Error('User is not authorized to perform secretsmanager:GetSecretValue'), { name: 'AccessDeniedException' })), /cannot read the model API key from Secrets Manager secret .*not authorized/],
  ])('fails the cold start with a ConfigError for %s', async (_, arrange, message) => {
    arrange();
    const attempt = readModelApiKey({ ...clients, secretId: secretArn });
    await expect(attempt).rejects.toBeInstanceOf(ConfigError);
    await expect(readModelApiKey({ ...clients, secretId: secretArn })).rejects.toThrow(message);
  });

  it('treats an empty parameter as no key yet', async () => {
    ssm.on(GetParameterCommand).resolves({ Parameter: { Value: ' ' } });
    await expect(readModelApiKey({ ...clients, parameterName: '/empty' })).resolves.toBeUndefined();
  });

  it('fails the cold start when the parameter cannot be read', async () => {
    ssm.on(GetParameterCommand).rejects(Object.assign(new Error('Parameter /missing not found.'), { name: 'ParameterNotFound' }));
    await expect(readModelApiKey({ ...clients, parameterName: '/missing' })).rejects.toThrow(/cannot read the model API key from SSM parameter \/missing: Parameter \/missing not found/);
  });
});
