/**
 * The jwt-bearer grant of workload identity federation: the platform's JWT is read from its file
 * at every token request (platforms rotate it), and a missing or malformed file says which file,
 * never what is in it.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ServerOAuthProvider } from '../../lib/adapters/mcp/oauth/provider.ts';
import { createMemoryTokenStore } from '../../lib/adapters/mcp/oauth/store.ts';
import { oauthSchema } from '../../lib/config/schema.ts';
import { silentLogger } from '../../lib/core/logger.ts';

let directory: string;
beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'workload-assertion-'));
});
afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

const jwt = (subject: string) => ['eyJhbGciOiJFUzI1NiJ9', Buffer.from(JSON.stringify({ sub: subject })).toString('base64url'), 'c2lnbmF0dXJl'].join('.');

function providerReading(assertionFile: string, scopes?: string[]) {
  const settings = oauthSchema.parse({ grant: 'jwt-bearer', clientId: 'workload', assertionFile, authorizationServer: 'https://login.example.com', ...(scopes ? { scopes } : {}) });
  return new ServerOAuthProvider({ name: 'tickets', url: 'https://tickets.example.com/mcp', settings }, { store: createMemoryTokenStore(), logger: silentLogger });
}

describe('the jwt-bearer grant of a workload', () => {
  it('presents the token its platform wrote, read again at every token request because platforms rotate it', async () => {
    const file = join(directory, 'token');
    const provider = providerReading(file, ['tickets:read']);
    await writeFile(file, `${jwt('first')}\n`);

    const first = await provider.prepareTokenRequest();
    await writeFile(file, jwt('rotated'));
    const second = await provider.prepareTokenRequest();

    expect(Object.fromEntries(first!)).toEqual({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: jwt('first'), scope: 'tickets:read' });
    expect(second?.get('assertion')).toBe(jwt('rotated'));
  });

  it('needs no person: there is no redirect URL to send one to', () => {
    expect(providerReading(join(directory, 'token')).redirectUrl).toBeUndefined();
  });

  it('names the file it cannot read', async () => {
    const file = join(directory, 'missing');
    await expect(providerReading(file).prepareTokenRequest()).rejects.toMatchObject({
      code: 'mcp_oauth_assertion_unavailable',
      message: `MCP server "tickets": the workload identity token file ${file} cannot be read (ENOENT)`,
    });
  });

  it('refuses a file that holds no JWT, without repeating what it holds', async () => {
    const file = join(directory, 'token');
    await writeFile(file, 'password=hunter2-secret');
    const failure = providerReading(file).prepareTokenRequest();
    await expect(failure).rejects.toMatchObject({ code: 'mcp_oauth_assertion_unavailable', message: expect.stringContaining('does not hold a signed JWT') });
    await expect(failure).rejects.not.toMatchObject({ message: expect.stringContaining('hunter2') });
  });
});

describe('a rejected workload identity token', () => {
  it('is not presented again (the SDK would at once after invalid_grant, and each reconnection would); the next one the platform writes is', async () => {
    const file = join(directory, 'token');
    await writeFile(file, jwt('workload'));
    const provider = providerReading(file);
    await provider.prepareTokenRequest();

    // What auth() does on invalid_grant before it runs the grant again.
    await provider.invalidateCredentials('tokens');

    for (const _attempt of [1, 2]) {
      await expect(provider.prepareTokenRequest()).rejects.toMatchObject({
        code: 'mcp_oauth_assertion_unavailable',
        message: expect.stringContaining('the authorization server rejected the workload identity token'),
      });
    }
    await writeFile(file, jwt('rotated'));
    expect((await provider.prepareTokenRequest())?.get('assertion')).toBe(jwt('rotated'));
  });
});
