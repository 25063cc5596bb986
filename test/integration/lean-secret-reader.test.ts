import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readHmacKey } from '../../lib/adapters/aws/hmac-key.ts';
import { readModelApiKey } from '../../lib/adapters/aws/model-api-key.ts';
import { leanSecretsFromEnvironment } from '../../lib/lean-secrets.ts';
import { startSignedDynamoServer, type SignedDynamoServer } from '../support/signed-dynamodb-server.ts';

/**
 * The cold start's secret reads without the AWS SDK (lib/lean-secrets.ts), against a local server
 * that checks SigV4 for secretsmanager and answers GetSecretValue as Secrets Manager does.
 */
const REGION = 'eu-west-1';
const CREDENTIALS = { accessKeyId: 'AKIDSECRETS', secretAccessKey: 'secrets-secret' };
const KEY_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:model-key';
const HMAC_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:hmac-key';
const HMAC = 'q3N8vX1kR7tY2mB9wE4sD6fG0hJ5lZ8cV3bN1mQ7pL2kR9tY4uI6oP0aS5dF8gH1';

let server: SignedDynamoServer;
beforeAll(async () => {
  server = await startSignedDynamoServer({ credentials: CREDENTIALS, region: REGION, service: 'secretsmanager' });
});
afterAll(async () => {
  await server?.close();
});

const environment = () => ({ AWS_REGION: REGION, AWS_ENDPOINT_URL_SECRETS_MANAGER: server.endpoint, AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId, AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey });

describe('the cold start’s secrets without the AWS SDK', () => {
  it('reads the model key and the HMAC key with signed GetSecretValue requests', async () => {
    server.answer({ body: { ARN: KEY_ARN, SecretString: '{"apiKey": "sk-from-secret"}' } }, { body: { ARN: HMAC_ARN, SecretString: HMAC } });
    const readSecret = leanSecretsFromEnvironment(environment());

    const apiKey = await readModelApiKey({ secretId: KEY_ARN, readSecret, ssm: () => { throw new Error('no SSM here'); } });
    const hmacKey = await readHmacKey({ secretId: HMAC_ARN, readSecret });

    expect(apiKey).toBe('sk-from-secret');
    expect(Buffer.from(hmacKey!).toString('utf8')).toBe(HMAC);
    expect(server.requests.map((request) => [request.operation, request.body, request.signatureProblem])).toEqual([
      ['GetSecretValue', { SecretId: KEY_ARN }, undefined],
      ['GetSecretValue', { SecretId: HMAC_ARN }, undefined],
    ]);
    expect(server.requests[0]!.headers).toMatchObject({ 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': 'secretsmanager.GetSecretValue' });
  });

  it('fails the cold start with what Secrets Manager said when the secret cannot be read', async () => {
    server.answer({ status: 400, body: { __type: 'AccessDeniedException', message: 'User is not authorized to perform secretsmanager:GetSecretValue' } });

    await expect(readHmacKey({ secretId: HMAC_ARN, readSecret: leanSecretsFromEnvironment(environment()) })).rejects.toThrow(/cannot read the HMAC key .*not authorized/);
  });

  it('retries as the SDK’s Secrets Manager client: 3 attempts in all, or AWS_MAX_ATTEMPTS', async () => {
    const unavailable = { status: 503, body: { __type: 'ServiceUnavailable', message: 'try later' } };
    server.answerAlways(unavailable);
    try {
      server.requests.length = 0;
      await expect(leanSecretsFromEnvironment(environment())(HMAC_ARN)).rejects.toMatchObject({ $metadata: { attempts: 3 } });
      server.requests.length = 0;
      await expect(leanSecretsFromEnvironment({ ...environment(), AWS_MAX_ATTEMPTS: '1' })(HMAC_ARN)).rejects.toMatchObject({ $metadata: { attempts: 1 } });
      expect(server.requests).toHaveLength(1);
    } finally {
      server.answerAlways({ status: 200, body: {} });
    }
  });
});
