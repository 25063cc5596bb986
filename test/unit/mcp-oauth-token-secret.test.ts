import { GetSecretValueCommand, PutSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { createSecretsManagerTokenStore, versionAfter } from '../../lib/adapters/aws/mcp-oauth-token-secret.ts';
import type { OAuthServerRecord } from '../../lib/adapters/mcp/oauth/record.ts';

const secretsManager = mockClient(SecretsManagerClient);
const secretId = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:mcp-agent/mcp-oauth-tokens-AbCdEf';
const store = () => createSecretsManagerTokenStore({ client: new SecretsManagerClient({ region: 'eu-west-1' }), secretId });

const tickets: OAuthServerRecord = {
  serverUrl: 'https://tickets.example.com/mcp',
  tokens: { access_token: 'access-tickets-1', token_type: 'Bearer', expires_in: 3600, refresh_token: 'refresh-tickets-1' },
  receivedAt: 1_000,
};
const wiki: OAuthServerRecord = { serverUrl: 'https://wiki.example.com/mcp', tokens: { access_token: 'access-wiki-1', token_type: 'Bearer' } };
const documentWith = (servers: Record<string, OAuthServerRecord>) => JSON.stringify({ version: 1, servers });
const written = (index = 0) => {
  const input = secretsManager.commandCalls(PutSecretValueCommand)[index]!.args[0].input;
  return { ...input, document: JSON.parse(input.SecretString!) as { servers: Record<string, OAuthServerRecord> } };
};

afterEach(() => {
  secretsManager.reset();
});

describe('the MCP OAuth token secret', () => {
  it('reads a server\'s record from the JSON document', async () => {
    secretsManager.on(GetSecretValueCommand, { SecretId: secretId }).resolves({ SecretString: documentWith({ tickets }), VersionId: 'v1' });

    await expect(store().read('tickets')).resolves.toEqual(tickets);
    await expect(store().read('wiki')).resolves.toBeUndefined();
  });

  it.each([
    ['the placeholder the stack creates', { SecretString: '{"version":1,"servers":{}}', VersionId: 'v0' }],
    ['an empty string', { SecretString: '', VersionId: 'v0' }],
  ])('reads %s as no records', async (_case, secret) => {
    secretsManager.on(GetSecretValueCommand).resolves(secret);
    await expect(store().read('tickets')).resolves.toBeUndefined();
  });

  it('reads a secret that has no value yet as no records, and writes the first version', async () => {
    secretsManager
      .on(GetSecretValueCommand)
      .rejects(Object.assign(new Error("Secrets Manager can't find the specified secret value for staging label: AWSCURRENT"), { name: 'ResourceNotFoundException' }));
    secretsManager.on(PutSecretValueCommand).resolves({ VersionId: versionAfter(undefined) });

    await store().update('tickets', () => tickets);

    expect(written()).toMatchObject({ SecretId: secretId, ClientRequestToken: versionAfter(undefined), document: { servers: { tickets } } });
  });

  it('writes over the version it read, keeping the other servers\' records', async () => {
    secretsManager.on(GetSecretValueCommand).resolves({ SecretString: documentWith({ wiki }), VersionId: 'version-read' });
    secretsManager.on(PutSecretValueCommand).resolves({});

    await store().update('tickets', () => tickets);

    const put = written();
    // Every writer that read "version-read" asks for the same next version: only one can create it.
    expect(put.ClientRequestToken).toBe(versionAfter('version-read'));
    expect(put.ClientRequestToken).toMatch(/^[0-9a-f]{64}$/);
    expect(put.document.servers).toEqual({ wiki, tickets });
  });

  it('reads again and reapplies its change when another writer stored a version first (no lost update)', async () => {
    const refreshedWiki = { ...wiki, tokens: { access_token: 'access-wiki-2', token_type: 'Bearer' } };
    secretsManager
      .on(GetSecretValueCommand)
      .resolvesOnce({ SecretString: documentWith({ wiki }), VersionId: 'v1' })
      .resolves({ SecretString: documentWith({ wiki: refreshedWiki }), VersionId: 'v2' });
    secretsManager
      .on(PutSecretValueCommand)
      .rejectsOnce(Object.assign(new Error('A resource with the ID you requested already exists.'), { name: 'ResourceExistsException' }))
      .resolves({});

    await store().update('tickets', () => tickets);

    expect(secretsManager.commandCalls(PutSecretValueCommand)).toHaveLength(2);
    expect(written(1).ClientRequestToken).toBe(versionAfter('v2'));
    expect(written(1).document.servers).toEqual({ wiki: refreshedWiki, tickets });
  });

  it('removes a record when the change returns nothing', async () => {
    secretsManager.on(GetSecretValueCommand).resolves({ SecretString: documentWith({ tickets, wiki }), VersionId: 'v1' });
    secretsManager.on(PutSecretValueCommand).resolves({});

    await store().update('tickets', () => undefined);

    expect(written().document.servers).toEqual({ wiki });
  });

  it('names the secret, never its content, when it cannot be read or written', async () => {
    secretsManager
      .on(GetSecretValueCommand)
      .resolvesOnce({ SecretString: 'not json access-tickets-1', VersionId: 'v1' })
      .rejects(Object.assign(new Error('User is not authorized to perform: secretsmanager:GetSecretValue'), { name: 'AccessDeniedException' }));

    const garbled = store().read('tickets');
    await expect(garbled).rejects.toThrow(`the MCP OAuth token store ${secretId} does not hold JSON`);
    await expect(garbled).rejects.not.toThrow(/access-tickets-1/);
    await expect(store().read('tickets')).rejects.toThrow(`cannot read the MCP OAuth token secret ${secretId}: User is not authorized`);
  });

  it('fails a write it may not make with the secret\'s name', async () => {
    secretsManager.on(GetSecretValueCommand).resolves({ SecretString: documentWith({}), VersionId: 'v1' });
    secretsManager.on(PutSecretValueCommand).rejects(Object.assign(new Error('User is not authorized to perform: secretsmanager:PutSecretValue'), { name: 'AccessDeniedException' }));

    await expect(store().update('tickets', () => tickets)).rejects.toThrow(`cannot write the MCP OAuth token secret ${secretId}`);
  });
});
