import { chmod, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFileTokenStore } from '../../lib/adapters/mcp/oauth/file-store.ts';
import type { OAuthServerRecord } from '../../lib/adapters/mcp/oauth/record.ts';

let directory: string;
const record = (name: string): OAuthServerRecord => ({
  serverUrl: `https://${name}.example.com/mcp`,
  tokens: { access_token: `access-${name}`, token_type: 'Bearer' },
});

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'mcp-oauth-file-'));
});

afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

describe('the MCP OAuth token file', () => {
  it('creates its folder and a file only its owner may read or write', async () => {
    const path = join(directory, 'data', 'mcp-oauth-tokens.json');

    await createFileTokenStore(path).update('tickets', () => record('tickets'));

    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({ version: 1, servers: { tickets: record('tickets') } });
    await expect(createFileTokenStore(path).read('tickets')).resolves.toEqual(record('tickets'));
  });

  it('replaces a file others could read with a 0600 one on the next write, and leaves no temporary file', async () => {
    const path = join(directory, 'mcp-oauth-tokens.json');
    await writeFile(path, JSON.stringify({ version: 1, servers: { wiki: record('wiki') } }));
    await chmod(path, 0o644);

    await createFileTokenStore(path).update('tickets', () => record('tickets'));

    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(await readdir(directory)).toEqual(['mcp-oauth-tokens.json']);
    await expect(createFileTokenStore(path).read('wiki')).resolves.toEqual(record('wiki'));
  });

  it('loses no update when two processes write at once', async () => {
    const path = join(directory, 'mcp-oauth-tokens.json');
    // Two stores on one file share nothing in memory, like the login command beside `npm start`.
    const stores = [createFileTokenStore(path), createFileTokenStore(path)];
    const names = Array.from({ length: 12 }, (_, index) => `server-${index}`);

    await Promise.all(names.map((name, index) => stores[index % 2]!.update(name, () => record(name))));

    const document = JSON.parse(await readFile(path, 'utf8')) as { servers: Record<string, unknown> };
    expect(Object.keys(document.servers).sort()).toEqual([...names].sort());
  });

  it('reads a missing file as no records', async () => {
    await expect(createFileTokenStore(join(directory, 'absent.json')).read('tickets')).resolves.toBeUndefined();
  });

  it('names the file, never its content, when it is not a token document', async () => {
    const path = join(directory, 'mcp-oauth-tokens.json');
    await writeFile(path, 'access-secret-token-in-a-broken-file');

    const reading = createFileTokenStore(path).read('tickets');

    await expect(reading).rejects.toThrow(`the MCP OAuth token store ${path} does not hold JSON`);
    await expect(reading).rejects.not.toThrow(/access-secret/);
  });
});
