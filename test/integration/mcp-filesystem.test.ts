/** The gateway against the MCP project's filesystem server, confined to a temporary directory. */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpGateway } from '../../lib/adapters/mcp/gateway.ts';
import type { ToolGateway } from '../../lib/core/ports/tools.ts';
import { FILESYSTEM_ENTRY, gatewayOptions } from '../support/mcp-servers.ts';

describe('the MCP gateway with server-filesystem over stdio', () => {
  // The server compares real paths; a symlinked temp dir would look like "outside".
  const allowed = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-filesystem-')));
  const outside = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-outside-')));
  let gateway: ToolGateway;
  const call = (name: string, args: Record<string, unknown>) =>
    gateway.callTool(name, args, { signal: new AbortController().signal, timeoutMs: 20_000 });

  beforeAll(() => {
    gateway = createMcpGateway(
      gatewayOptions([{ name: 'files', type: 'stdio', command: 'node', args: [FILESYSTEM_ENTRY, allowed], env: {} }]),
    );
  });

  afterAll(async () => {
    await gateway.close();
    rmSync(allowed, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  it('lists the file tools', async () => {
    const names = (await gateway.listTools()).map((tool) => tool.name);

    expect(names).toEqual(expect.arrayContaining(['read_text_file', 'write_file', 'list_directory']));
  });

  it('reads back a file it wrote', async () => {
    const path = join(allowed, 'note.txt');

    const written = await call('write_file', { path, content: '第一行\nsecond line' });
    const read = await call('read_text_file', { path });

    expect(written.ok).toBe(true);
    expect(read).toEqual({ ok: true, text: '第一行\nsecond line' });
  });

  it('lists the directory', async () => {
    await call('write_file', { path: join(allowed, 'listed.txt'), content: 'x' });

    const listing = await call('list_directory', { path: allowed });

    expect(listing.ok).toBe(true);
    expect(listing.text).toContain('[FILE] listed.txt');
  });

  it('answers ok: false for a path outside the allowed directory', async () => {
    const output = await call('read_text_file', { path: join(outside, 'secret.txt') });

    expect(output.ok).toBe(false);
    expect(output.text).toMatch(/denied|outside allowed/i);
  });
});
