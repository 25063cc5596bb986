import { decodeProtectedHeader, exportPKCS8, exportSPKI, generateKeyPair, importSPKI, jwtVerify } from 'jose';
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { chooseMethod, clientAuthentication } from '../../lib/adapters/mcp/oauth/client-auth.ts';
import { oauthSchema, type OAuthSettings } from '../../lib/config/schema.ts';

/** A secret or key is only ever configured with the authorization server it belongs to. */
const settings = (fields: Record<string, unknown>): OAuthSettings => oauthSchema.parse({ authorizationServer: 'https://login.example.com', ...fields });
const metadata = (methods?: string[]) => ({
  issuer: 'https://login.example.com',
  authorization_endpoint: 'https://login.example.com/authorize',
  token_endpoint: 'https://login.example.com/token',
  response_types_supported: ['code'],
  ...(methods ? { token_endpoint_auth_methods_supported: methods } : {}),
});

async function authenticate(fields: Record<string, unknown>, methods?: string[]) {
  const headers = new Headers();
  const params = new URLSearchParams({ grant_type: 'client_credentials' });
  await clientAuthentication(settings(fields))!(headers, params, 'https://login.example.com/token', metadata(methods));
  return { headers, params };
}

describe('token endpoint authentication of a pre-registered client', () => {
  it.each([
    ['basic when the server lists it', { clientId: 'a', clientSecret: 's' }, ['client_secret_post', 'client_secret_basic'], 'client_secret_basic'],
    ['post when the server lists only post', { clientId: 'a', clientSecret: 's' }, ['client_secret_post'], 'client_secret_post'],
    ['basic when the server lists nothing (RFC 8414 default)', { clientId: 'a', clientSecret: 's' }, undefined, 'client_secret_basic'],
    ['private_key_jwt with a private key', { clientId: 'a', privateKey: 'k' }, ['client_secret_basic'], 'private_key_jwt'],
    ['none for a public client', { clientId: 'a' }, ['client_secret_basic', 'none'], 'none'],
    ['the configured method whatever the server lists', { clientId: 'a', clientSecret: 's', tokenEndpointAuthMethod: 'client_secret_post' }, ['client_secret_basic'], 'client_secret_post'],
  ])('chooses %s', (_case, fields, methods, expected) => {
    expect(chooseMethod(settings(fields), metadata(methods))).toBe(expected);
  });

  it('leaves dynamically registered clients to the SDK', () => {
    expect(clientAuthentication(settings({}))).toBeUndefined();
  });

  it('form-encodes id and secret before Basic (RFC 6749 §2.3.1), so a ":" in either survives', async () => {
    const { headers, params } = await authenticate({ clientId: 'svc:agent', clientSecret: 'p@ss word:1' });
    const decoded = Buffer.from(headers.get('authorization')!.replace('Basic ', ''), 'base64').toString();
    expect(decoded).toBe('svc%3Aagent:p%40ss+word%3A1');
    expect(params.has('client_secret')).toBe(false);
  });

  it('sends the secret in the body for client_secret_post', async () => {
    const { headers, params } = await authenticate({ clientId: 'agent', clientSecret: 's3cret' }, ['client_secret_post']);
    expect(headers.has('authorization')).toBe(false);
    expect(Object.fromEntries(params)).toMatchObject({ client_id: 'agent', client_secret: 's3cret' });
  });

  it('signs a short-lived client assertion for the issuer with the configured key and key id (RFC 7523)', async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
    // As kept in a one-line environment variable.
    const oneLinePem = (await exportPKCS8(privateKey)).replace(/\n/g, '\\n');

    const { params } = await authenticate({ clientId: 'agent', privateKey: oneLinePem, privateKeyAlgorithm: 'ES256', keyId: 'key-2026' });

    const assertion = params.get('client_assertion')!;
    const verified = await jwtVerify(assertion, await importSPKI(await exportSPKI(publicKey), 'ES256'), { audience: 'https://login.example.com' });
    expect(params.get('client_assertion_type')).toBe('urn:ietf:params:oauth:client-assertion-type:jwt-bearer');
    expect(decodeProtectedHeader(assertion)).toEqual({ alg: 'ES256', typ: 'JWT', kid: 'key-2026' });
    expect(verified.payload).toMatchObject({ iss: 'agent', sub: 'agent', jti: expect.any(String) });
    expect(verified.payload.exp! - verified.payload.iat!).toBe(300);
  });

  it('says what is wrong with a key that is not PKCS#8 for its algorithm, without showing it', async () => {
    const attempt = authenticate({ clientId: 'agent', privateKey: 'not-a-key-material-xyz', privateKeyAlgorithm: 'RS256' });
    await expect(attempt).rejects.toThrow(/the OAuth private key is not a PKCS#8 PEM key for RS256/);
    await expect(attempt).rejects.not.toThrow(/not-a-key-material-xyz/);
  });

  it.each([
    ['RS256', { algorithm: 'rsa', options: { modulusLength: 2048 } }],
    ['PS384', { algorithm: 'rsa', options: { modulusLength: 2048 } }],
    ['ES256', { algorithm: 'ec', options: { namedCurve: 'P-256' } }],
    ['ES512', { algorithm: 'ec', options: { namedCurve: 'P-521' } }],
    ['EdDSA', { algorithm: 'ed25519', options: {} }],
  ] as const)('signs %s assertions that a JOSE library verifies', async (alg, { algorithm, options }) => {
    const { privateKey, publicKey } = generateKeyPairSync(algorithm as 'rsa', { ...options, privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } } as never) as unknown as { privateKey: string; publicKey: string };
    const { params } = await authenticate({ clientId: 'agent', privateKey, privateKeyAlgorithm: alg });
    const assertion = params.get('client_assertion')!;
    const verified = await jwtVerify(assertion, await importSPKI(publicKey, alg), { audience: 'https://login.example.com', issuer: 'agent' });
    expect(verified.protectedHeader).toEqual({ alg, typ: 'JWT' });
  });

  it.each([
    ['an EC key for RS256', 'RS256', () => generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey, /not a key for RS256/],
    ['a P-384 key for ES256', 'ES256', () => generateKeyPairSync('ec', { namedCurve: 'P-384' }).privateKey, /not a key for ES256/],
    ['a 1024-bit RSA key', 'RS256', () => generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey, /2048 bits or larger/],
  ] as const)('refuses %s', async (_case, alg, makeKey, reason) => {
    const privateKey = makeKey().export({ type: 'pkcs8', format: 'pem' }) as string;
    const attempt = authenticate({ clientId: 'agent', privateKey, privateKeyAlgorithm: alg });
    await expect(attempt).rejects.toThrow(/the OAuth private key is not a PKCS#8 PEM key/);
    await expect(attempt).rejects.toThrow(reason);
  });
});
