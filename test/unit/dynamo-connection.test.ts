import { describe, expect, it } from 'vitest';
import { readLocalSettings } from '../../lib/config/environment.ts';
import { connectionEnvironment, dynamoConnection, isAwsEndpoint } from '../../lib/local/dynamo-connection.ts';

const LOCAL = 'http://localhost:8000';
const AWS = 'https://dynamodb.eu-west-1.amazonaws.com';
const KEYS = { AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE', AWS_SECRET_ACCESS_KEY: 'secret' };

describe('dynamoConnection', () => {
  it('gives an emulator the placeholder region and keys when the environment has none', () => {
    expect(dynamoConnection(LOCAL, {})).toEqual({
      endpoint: LOCAL,
      region: 'local',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
  });

  it('uses the region and keys of the environment when set, for an emulator and for AWS', () => {
    const environment = { ...KEYS, AWS_REGION: 'eu-west-1', AWS_SESSION_TOKEN: 'token' };
    const expected = { region: 'eu-west-1', credentials: { accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'secret', sessionToken: 'token' } };
    expect(dynamoConnection(LOCAL, environment)).toEqual({ endpoint: LOCAL, ...expected });
    expect(dynamoConnection(AWS, environment)).toEqual({ endpoint: AWS, ...expected });
  });

  it('leaves region and keys to the SDK for AWS when the environment has none (profiles, SSO, roles)', () => {
    expect(dynamoConnection(AWS, {})).toEqual({ endpoint: AWS });
  });

  it('does not pair a key from the environment with a placeholder secret', () => {
    expect(dynamoConnection(LOCAL, { AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE' }).credentials).toEqual({ accessKeyId: 'local', secretAccessKey: 'local' });
  });

  it.each([
    ['https://dynamodb.us-east-1.amazonaws.com', true],
    ['https://dynamodb-fips.us-gov-west-1.amazonaws.com', true],
    ['https://vpce-1a2b3c.dynamodb.eu-west-1.vpce.amazonaws.com', true],
    ['https://dynamodb.cn-north-1.amazonaws.com.cn', true],
    ['http://localhost:8000', false],
    ['http://dynamodb-local:8000', false],
    ['http://localhost.amazonaws.com.example:4566', false],
  ])('tells AWS from an emulator by host: %s is AWS: %s', (endpoint, aws) => {
    expect(isAwsEndpoint(endpoint)).toBe(aws);
  });
});

describe('connectionEnvironment', () => {
  it('names the endpoint, region and keys for a client built from the environment', () => {
    expect(connectionEnvironment(dynamoConnection(LOCAL, {}))).toEqual({
      AWS_ENDPOINT_URL_DYNAMODB: LOCAL,
      AWS_REGION: 'local',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
    });
    expect(connectionEnvironment(dynamoConnection(AWS, {}))).toEqual({ AWS_ENDPOINT_URL_DYNAMODB: AWS });
  });
});

describe('readLocalSettings', () => {
  it('reads DYNAMODB_ENDPOINT, trimmed, and leaves it out when empty', () => {
    expect(readLocalSettings({ DYNAMODB_ENDPOINT: ' http://localhost:8000 ' }).dynamodbEndpoint).toBe('http://localhost:8000');
    expect(readLocalSettings({ DYNAMODB_ENDPOINT: '' })).not.toHaveProperty('dynamodbEndpoint');
  });

  it.each(['localhost:8000', 'ftp://localhost:8000', 'not a url'])('refuses DYNAMODB_ENDPOINT=%s, saying what it must be', (value) => {
    expect(() => readLocalSettings({ DYNAMODB_ENDPOINT: value })).toThrow(
      `DYNAMODB_ENDPOINT must be an http:// or https:// URL such as http://localhost:8000, not "${value}"`,
    );
  });
});
