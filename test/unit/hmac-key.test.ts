/** Where the deployment's HMAC key comes from: the stack's secret in Lambda, a file under the data folder locally. */
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { secretReaderFromClient } from '../../lib/adapters/aws/secret-reader.ts';
import { afterEach, describe, expect, it } from 'vitest';
import { readHmacKey } from '../../lib/adapters/aws/hmac-key.ts';
import { ConfigError } from '../../lib/core/errors.ts';
import { loadLocalHmacKey } from '../../lib/local/hmac-key.ts';
import { temporaryFolder } from '../support/temporary-folder.ts';

const secretsManager = mockClient(SecretsManagerClient);
const client = () => new SecretsManagerClient({ region: 'eu-west-1' });
const secretArn = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:mcp-agent/hmac-key-AbCdEf';
const generated = 'q3N8vX1kR7tY2mB9wE4sD6fG0hJ5lZ8cV3bN1mQ7pL2kR9tY4uI6oP0aS5dF8gH1';

afterEach(() => secretsManager.reset());

describe('readHmacKey', () => {
  it('reads the secret the stack generated, once', async () => {
    secretsManager.on(GetSecretValueCommand, { SecretId: secretArn }).resolves({ SecretString: generated });

    const key = await readHmacKey({ secretId: secretArn, readSecret: secretReaderFromClient(client) });

    expect(Buffer.from(key!).toString('utf8')).toBe(generated);
    expect(secretsManager.commandCalls(GetSecretValueCommand)).toHaveLength(1);
  });

  it('returns undefined without a secret, and calls nothing', async () => {
    await expect(readHmacKey({ readSecret: secretReaderFromClient(client) })).resolves.toBeUndefined();
    expect(secretsManager.calls()).toHaveLength(0);
  });

  it.each([
    ['a short secret', { SecretString: 'short' }, /at least 32 characters/],
    ['an empty secret', { SecretString: '' }, /at least 32 characters/],
  ])('fails the cold start on %s', async (_kind, answer, message) => {
    secretsManager.on(GetSecretValueCommand).resolves(answer);
    await expect(readHmacKey({ secretId: secretArn, readSecret: secretReaderFromClient(client) })).rejects.toSatisfy((error) => error instanceof ConfigError && message.test(error.message) && error.message.includes(secretArn));
  });

  it('fails the cold start, naming the secret, when it cannot be read', async () => {
    secretsManager.on(GetSecretValueCommand).rejects(Object.assign(new Error('User is not authorized'), { name: 'AccessDeniedException' }));
    await expect(readHmacKey({ secretId: secretArn, readSecret: secretReaderFromClient(client) })).rejects.toSatisfy((error) => error instanceof ConfigError && error.message.includes(secretArn) && /not authorized/.test(error.message));
  });
});

describe('loadLocalHmacKey', () => {
  it('creates the key on first start, readable by its owner only, and keeps it', () => {
    const file = join(temporaryFolder('hmac-key-'), 'nested', 'hmac-key');

    const first = loadLocalHmacKey(file);
    const again = loadLocalHmacKey(file);

    expect(first.length).toBe(32);
    expect(Buffer.from(again).equals(Buffer.from(first))).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('uses a key the operator wrote, and refuses one too short to be a secret', () => {
    const folder = temporaryFolder('hmac-key-');
    writeFileSync(join(folder, 'own'), 'a'.repeat(64) + '\n', { mode: 0o600 });
    writeFileSync(join(folder, 'short'), 'abc', { mode: 0o600 });

    expect(Buffer.from(loadLocalHmacKey(join(folder, 'own'))).toString('hex')).toBe('a'.repeat(64));
    expect(() => loadLocalHmacKey(join(folder, 'short'))).toThrow(/at least 32 bytes/);
    expect(readFileSync(join(folder, 'own'), 'utf8')).toBe('a'.repeat(64) + '\n');
  });

  it('makes a key others could read its owner\'s only', () => {
    const file = join(temporaryFolder('hmac-key-'), 'hmac-key');
    writeFileSync(file, 'b'.repeat(64) + '\n');
    chmodSync(file, 0o644);

    expect(Buffer.from(loadLocalHmacKey(file)).toString('hex')).toBe('b'.repeat(64));
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });
});
