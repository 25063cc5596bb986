/**
 * The lean clients' SigV4 (lib/adapters/aws/sign-json-post.ts) signs a JSON POST exactly as the
 * SDK's signer (`@smithy/signature-v4`, which signed these requests before) does: the same headers,
 * byte for byte, for paths, header values, session tokens and dates of every kind the endpoint
 * settings can produce; and the signature holds for the checker written from the specification
 * (test/support/sigv4-check.ts), as a service would check it.
 */
import { SignatureV4 } from '@smithy/signature-v4';
import { describe, expect, it } from 'vitest';
import { NodeSha256 } from '../../lib/adapters/aws/node-sha256.ts';
import { signJsonPost } from '../../lib/adapters/aws/sign-json-post.ts';
import type { AwsCredentials } from '../../lib/adapters/aws/json-client.ts';
import { signatureProblem } from '../support/sigv4-check.ts';

const KEYS: AwsCredentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };
const SESSION: AwsCredentials = { ...KEYS, sessionToken: 'IQoJb3JpZ2luX2VjEJr//////////wEaCXVzLWVhc3QtMSJHMEUCIQ' };

interface Case {
  host: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  credentials: AwsCredentials;
  service: string;
  region: string;
  date: Date;
}

const base: Case = {
  host: 'dynamodb.us-east-1.amazonaws.com',
  path: '/',
  headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'DynamoDB_20120810.PutItem' },
  body: JSON.stringify({ TableName: 'conversations', Item: { pk: { S: 'conversation#1' }, text: { S: '你好 “quoted” \n line' } } }),
  credentials: KEYS,
  service: 'dynamodb',
  region: 'us-east-1',
  date: new Date('2026-11-27T03:14:15.926Z'),
};

const cases: Array<[string, Case]> = [
  ['a DynamoDB PutItem', base],
  ['temporary credentials (a Lambda role)', { ...base, credentials: SESSION }],
  ['Secrets Manager in another region and a local endpoint with a port', { ...base, host: 'localhost:4566', service: 'secretsmanager', region: 'eu-central-1', headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': 'secretsmanager.GetSecretValue' } }],
  ['an endpoint with a path of its own', { ...base, path: '/proxy/dynamodb/' }],
  ['a path with dot segments, doubled slashes and characters to encode', { ...base, path: "/a/./b/../c//d%20e/f(g)!*'~/" }],
  ['an empty body and a date at midnight', { ...base, body: '', date: new Date('2027-01-01T00:00:00.000Z') }],
  ['header values with runs of blanks, tabs and line breaks', { ...base, headers: { ...base.headers, 'x-custom': '  a \t b\r\nc  ' } }],
];

async function sdkSigned(test: Case): Promise<Record<string, string>> {
  const signer = new SignatureV4({ service: test.service, region: test.region, credentials: test.credentials, sha256: NodeSha256 });
  const [hostname, port] = test.host.split(':');
  const signed = await signer.sign({ method: 'POST', protocol: 'https:', hostname: hostname!, ...(port ? { port: Number(port) } : {}), path: test.path, query: {}, headers: { host: test.host, ...test.headers }, body: test.body }, { signingDate: test.date });
  const { host: _host, ...headers } = signed.headers as Record<string, string>;
  return headers;
}

describe('signJsonPost', () => {
  it.each(cases)('signs %s as the SDK\'s signer does', async (_name, test) => {
    const ours = signJsonPost({ host: test.host, path: test.path, headers: test.headers, body: test.body }, test.credentials, { service: test.service, region: test.region }, test.date);

    expect(ours).toEqual(await sdkSigned(test));
  });

  it('signs so that a service checking the signature accepts it, and refuses it when anything signed changes', () => {
    const headers = signJsonPost({ host: base.host, path: '/', headers: base.headers, body: base.body }, SESSION, { service: 'dynamodb', region: 'us-east-1' }, new Date());
    const request = { method: 'POST', path: '/', headers: { ...headers, host: base.host }, body: Buffer.from(base.body) };

    expect(signatureProblem(request, SESSION, { service: 'dynamodb', region: 'us-east-1' })).toBeUndefined();
    expect(signatureProblem({ ...request, body: Buffer.from(`${base.body} `) }, SESSION, { service: 'dynamodb', region: 'us-east-1' })).toMatch(/x-amz-content-sha256/);
    expect(signatureProblem({ ...request, headers: { ...request.headers, 'x-amz-target': 'DynamoDB_20120810.DeleteItem' } }, SESSION, { service: 'dynamodb', region: 'us-east-1' })).toMatch(/signature we calculated does not match/);
    expect(signatureProblem(request, { ...SESSION, secretAccessKey: 'another' }, { service: 'dynamodb', region: 'us-east-1' })).toMatch(/does not match/);
  });
});
