/**
 * What the gateway offers servers as a client, against the MCP project's own servers: roots
 * (server-filesystem replaces its directories with them; server-everything lists them),
 * elicitation (policies decline, defaults, ask), sampling through a callback, and a tool that
 * runs only as an MCP task (server-everything's simulate-research-query). server-filesystem runs
 * as a process over stdio; server-everything in this process, over InMemoryTransport.
 */
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createMcpGateway } from '../../lib/adapters/mcp/gateway.ts';
import type { McpGatewayOptions, McpServerSpec } from '../../lib/adapters/mcp/types.ts';
import type { ElicitationRequest, SamplingRequest, ServerRequestContext, ToolGateway } from '../../lib/core/ports/tools.ts';
import { FILESYSTEM_ENTRY, gatewayOptions, inMemoryEverything } from '../support/mcp-servers.ts';

const call = (gateway: ToolGateway, name: string, args: Record<string, unknown> = {}, timeoutMs = 20_000) =>
  gateway.callTool(name, args, { signal: new AbortController().signal, timeoutMs });
/** server-everything in this process (InMemoryTransport): these tests are about client features, not stdio. */
const everything = inMemoryEverything;

const gateways: ToolGateway[] = [];
function startGateway(servers: McpServerSpec[], extra: Partial<McpGatewayOptions> = {}): ToolGateway {
  const gateway = createMcpGateway({ ...gatewayOptions(servers), ...extra });
  gateways.push(gateway);
  return gateway;
}

afterEach(async () => {
  await Promise.all(gateways.splice(0).map((gateway) => gateway.close()));
});

describe('roots', () => {
  const configured = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-root-')));
  const commandLine = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-cli-dir-')));

  beforeAll(() => {
    writeFileSync(join(configured, 'inside.txt'), 'in the root');
    writeFileSync(join(commandLine, 'outside.txt'), 'on the command line only');
  });

  afterAll(() => {
    rmSync(configured, { recursive: true, force: true });
    rmSync(commandLine, { recursive: true, force: true });
  });

  it('server-filesystem works in the configured roots instead of its command-line directories', async () => {
    const gateway = startGateway([
      { name: 'files', type: 'stdio', command: 'node', args: [FILESYSTEM_ENTRY, commandLine], env: {}, roots: [pathToFileURL(configured).href] },
    ]);
    await gateway.listTools();

    // The server asks for the roots after `initialized`, so its directories change a moment later.
    await vi.waitFor(async () => {
      const allowed = await call(gateway, 'list_allowed_directories');
      expect(allowed.text).toContain(configured);
      expect(allowed.text).not.toContain(commandLine);
    }, { timeout: 15_000, interval: 200 });
    expect(await call(gateway, 'read_text_file', { path: join(configured, 'inside.txt') })).toEqual({ ok: true, text: 'in the root' });
    expect((await call(gateway, 'read_text_file', { path: join(commandLine, 'outside.txt') })).ok).toBe(false);
  }, 60_000);

  it('server-filesystem keeps its command-line directories when no roots are configured', async () => {
    const gateway = startGateway([{ name: 'files', type: 'stdio', command: 'node', args: [FILESYSTEM_ENTRY, commandLine], env: {} }]);

    expect(await call(gateway, 'read_text_file', { path: join(commandLine, 'outside.txt') })).toEqual({ ok: true, text: 'on the command line only' });
  }, 60_000);

  it('server-everything lists the configured roots', async () => {
    const gateway = startGateway([everything({ roots: [pathToFileURL(configured).href] })]);
    await gateway.listTools();

    const listed = await call(gateway, 'get-roots-list');

    expect(listed.text).toContain(pathToFileURL(configured).href);
  }, 60_000);
});

describe('elicitation', () => {
  it('is not declared by default, so server-everything does not offer its elicitation tool', async () => {
    const gateway = startGateway([everything()]);

    const names = (await gateway.listTools()).map((tool) => tool.name);

    expect(names).toContain('echo');
    expect(names).not.toContain('trigger-elicitation-request');
  }, 60_000);

  it('declines a form whose required fields have no defaults under the defaults policy', async () => {
    const gateway = startGateway([everything({ elicitation: 'defaults' })]);
    await gateway.listTools();

    const output = await call(gateway, 'trigger-elicitation-request');

    expect(output.text).toContain('User declined');
  }, 60_000);

  it('hands the request to onElicitation under the ask policy, with the call it came from', async () => {
    const asked: Array<{ request: ElicitationRequest; context: ServerRequestContext }> = [];
    const gateway = startGateway([everything({ elicitation: 'ask' })], {
      onElicitation: async (request, context) => {
        asked.push({ request, context });
        return { action: 'accept', content: { name: 'Ada Lovelace', check: true } };
      },
    });
    await gateway.listTools();

    const output = await call(gateway, 'trigger-elicitation-request');

    expect(output.text).toContain('Ada Lovelace');
    expect(asked).toHaveLength(1);
    expect(asked[0]!.request.requestedSchema).toMatchObject({ type: 'object', properties: { name: { type: 'string' } } });
    expect(asked[0]!.context).toMatchObject({ server: 'everything', toolCalls: [{ name: 'trigger-elicitation-request' }] });
  }, 60_000);

  it('is not declared under ask when no callback is given', async () => {
    const gateway = startGateway([everything({ elicitation: 'ask' })]);

    expect((await gateway.listTools()).map((tool) => tool.name)).not.toContain('trigger-elicitation-request');
  }, 60_000);
});

describe('sampling', () => {
  it('forwards sampling/createMessage to onSampling when the server may sample', async () => {
    const requests: SamplingRequest[] = [];
    const gateway = startGateway([everything({ sampling: true })], {
      onSampling: async (request) => {
        requests.push(request);
        return { text: 'a sampled answer', model: 'scripted-model', stopReason: 'endTurn' };
      },
    });
    await gateway.listTools();

    const output = await call(gateway, 'trigger-sampling-request', { prompt: 'say hi', maxTokens: 50 });

    expect(output.text).toContain('a sampled answer');
    expect(requests[0]).toMatchObject({ maxTokens: 50, systemPrompt: 'You are a helpful test server.', messages: [{ role: 'user', text: expect.stringContaining('say hi') }] });
  }, 60_000);

  it('is off by default: the server never sees a sampling capability', async () => {
    const gateway = startGateway([everything()], { onSampling: async () => ({ text: 'never', model: 'none' }) });

    expect((await gateway.listTools()).map((tool) => tool.name)).not.toContain('trigger-sampling-request');
  }, 60_000);
});

describe('a tool that runs only as an MCP task', () => {
  it('runs server-everything simulate-research-query through tasks: create, poll, result', async () => {
    const gateway = startGateway([everything()]);
    const tools = await gateway.listTools();
    expect(tools.map((tool) => tool.name)).toContain('simulate-research-query');

    const output = await call(gateway, 'simulate-research-query', { topic: 'tide pools' }, 30_000);

    expect(output.ok).toBe(true);
    expect(output.text).toContain('tide pools');
  }, 60_000);

  it('ends a task call at its timeout', async () => {
    const gateway = startGateway([everything()]);
    await gateway.listTools();

    await expect(call(gateway, 'simulate-research-query', { topic: 'slow' }, 1_500)).rejects.toMatchObject({ code: 'tool_timeout' });
  }, 60_000);
});
