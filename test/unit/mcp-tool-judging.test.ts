/**
 * Each tool of a listing is judged alone: a bad one costs only itself (test/fixtures/quirky-tools-server.ts),
 * and the schemas offered to the model are fitted for model APIs.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createMcpGateway } from '../../lib/adapters/mcp/gateway.ts';
import { judgeTools } from '../../lib/adapters/mcp/list-tools.ts';
import { healthReport } from '../../lib/agent/health.ts';
import { planCalls } from '../../lib/agent/loop/tool-plan.ts';
import { fitSchemaForModel } from '../../lib/adapters/mcp/schema/fit.ts';
import type { ToolDefinition, ToolGateway } from '../../lib/core/ports/tools.ts';
import { createQuirkyToolsServer } from '../fixtures/quirky-tools-server.ts';
import { gatewayOptions, type InMemoryServerSpec } from '../support/mcp-servers.ts';
import { recordingLogger } from '../support/recording-logger.ts';

/** The quirky server in this process, over the SDK's InMemoryTransport. */
const quirky = (features: Partial<InMemoryServerSpec> = {}): InMemoryServerSpec => ({
  name: 'quirky',
  type: 'in-memory',
  connect: (transport) => createQuirkyToolsServer().connect(transport),
  ...features,
});
const SNAPSHOT_BASE64 = Buffer.alloc(9_000, 7).toString('base64');
const noSignal = () => new AbortController().signal;

describe('a server whose listing mixes good and malformed tools', () => {
  const logger = recordingLogger();
  let gateway: ToolGateway;
  let tools: ToolDefinition[];

  beforeAll(async () => {
    gateway = createMcpGateway(
      gatewayOptions([quirky({ readResources: true })], {}, logger),
    );
    tools = await gateway.listTools();
  });

  afterAll(async () => {
    await gateway.close();
  });

  it('offers the good tools and leaves out each bad one', () => {
    expect(tools.map((tool) => tool.name)).toEqual(['echo', 'nested', 'snapshot']);
  });

  it('names each skipped tool and why, in the status and the log', async () => {
    const [status] = await gateway.status();

    expect(status).toMatchObject({ name: 'quirky', status: 'connected', toolCount: 3 });
    expect(status?.skippedTools).toEqual([
      { name: 'misspelt-type', reason: expect.stringMatching(/^inputSchema is not valid JSON Schema: .*(type|allowed values)/) },
      { name: 'dangling-ref', reason: expect.stringMatching(/^inputSchema is not valid JSON Schema: .*resolve reference #\/\$defs\/Address/) },
      { name: 'not-an-object', reason: expect.stringContaining('inputSchema.type') },
      { name: 'bad-output', reason: expect.stringMatching(/^outputSchema is not valid JSON Schema/) },
      { name: 'no-schema', reason: expect.stringContaining('inputSchema') },
      { name: 'needs-task', reason: expect.stringContaining('requires task-based execution') },
    ]);
    expect(logger.entries).toContainEqual({
      level: 'warn',
      message: 'mcp tool skipped',
      fields: { server: 'quirky', tool: 'dangling-ref', reason: expect.any(String) },
    });
  });

  it('names each skipped tool and why in /health too', async () => {
    const report = await healthReport({ gateway, model: undefined, modelConfig: { name: 'gpt-4o-mini' }, offeredTools: async () => [], logger });

    expect(report.mcpServers[0]?.skippedTools?.map((tool) => tool.name)).toEqual(['misspelt-type', 'dangling-ref', 'not-an-object', 'bad-output', 'no-schema', 'needs-task']);
    expect(report.mcpServers[0]?.skippedTools?.[1]?.reason).toMatch(/^inputSchema is not valid JSON Schema/);
  });

  it('offers a schema with $defs inlined, recursion bounded, $schema removed and properties everywhere', () => {
    const nested = tools.find((tool) => tool.name === 'nested')!;
    const text = JSON.stringify(nested.parameters);

    expect(text).not.toMatch(/\$ref|\$defs|\$schema/);
    expect(nested.parameters).toMatchObject({
      type: 'object',
      required: ['home'],
      properties: {
        home: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        options: { type: 'object', properties: {} },
        tree: { type: 'object', properties: { children: { type: 'array', items: { type: 'object' } } } },
      },
    });
  });

  it('checks a call\'s arguments with the validator compiled when the tool was judged: each schema is compiled once', () => {
    const nested = tools.find((tool) => tool.name === 'nested')!;
    const compile = vi.spyOn(Ajv2020.prototype, 'compile');
    try {
      const [valid, invalid] = planCalls(
        [
          { id: 'call-1', name: 'nested', arguments: JSON.stringify({ home: { city: 'Paris' } }) },
          { id: 'call-2', name: 'nested', arguments: JSON.stringify({ home: {} }) },
        ],
        { tools: new Map([['nested', { ...nested, needsApproval: false, readOnly: false }]]), limits: { maxCallsPerRound: 4, maxCallsPerTurn: 4 }, callsSoFar: 0 },
      );

      expect(valid).toMatchObject({ kind: 'run' });
      expect(invalid).toMatchObject({ kind: 'refused', text: expect.stringContaining('missing required field "home.city"') });
      expect(compile).not.toHaveBeenCalled();
    } finally {
      compile.mockRestore();
    }
  });

  it('calls a good tool of that server', async () => {
    const output = await gateway.callTool('echo', { text: 'hi' }, { signal: noSignal(), timeoutMs: 20_000 });

    expect(JSON.parse(output.text)).toEqual({ calledAs: 'echo', arguments: { text: 'hi' } });
  });

  it('describes an image and the base64 in its structuredContent instead of sending them', async () => {
    const output = await gateway.callTool('snapshot', {}, { signal: noSignal(), timeoutMs: 20_000 });

    expect(output.ok).toBe(true);
    expect(output.text).not.toContain(SNAPSHOT_BASE64.slice(0, 64));
    expect(output.text.length).toBeLessThan(400);
    expect(output.text).toContain('[image: image/png');
    expect(output.text).toContain('"width":64');
  });

  it('reads a text resource as text and describes a binary one', async () => {
    const read = (uri: string) => gateway.readResource!('quirky', uri, { signal: noSignal(), timeoutMs: 20_000 });

    expect(await read('note://text')).toEqual({ ok: true, text: 'a text note' });
    expect(await read('note://blob')).toEqual({ ok: true, text: '[resource: note://blob, application/octet-stream]' });
    expect(await read('note://missing')).toMatchObject({ ok: false, text: expect.stringContaining('no resource note://missing') });
  });

  it('refuses to read resources of a server that does not allow it', async () => {
    const closed = createMcpGateway(gatewayOptions([quirky()]));
    try {
      await expect(closed.readResource!('quirky', 'note://text', { signal: noSignal(), timeoutMs: 20_000 })).rejects.toThrow(
        /readResources is off/,
      );
    } finally {
      await closed.close();
    }
  });

  it('reads only the URIs a pattern list allows', async () => {
    const narrow = createMcpGateway(gatewayOptions([quirky({ readResources: ['note://t*'] })]));
    try {
      expect(await narrow.readResource!('quirky', 'note://text', { signal: noSignal(), timeoutMs: 20_000 })).toEqual({ ok: true, text: 'a text note' });
      await expect(narrow.readResource!('quirky', 'note://blob', { signal: noSignal(), timeoutMs: 20_000 })).rejects.toThrow(/not allowed: its readResources lists note:\/\/t\*/);
      // Inside the pattern as text, outside it as a path: refused before the server sees it.
      await expect(narrow.readResource!('quirky', 'note://t/../blob', { signal: noSignal(), timeoutMs: 20_000 })).rejects.toThrow(/not allowed: its path has "\." or "\.\." segments/);
      await expect(narrow.readResource!('quirky', 'note://t/%2E%2e/blob', { signal: noSignal(), timeoutMs: 20_000 })).rejects.toThrow(/not allowed: its path has/);
    } finally {
      await narrow.close();
    }
  });
});

describe('judgeTools', () => {
  it('keeps a task-required tool when the server offers tasks for tools/call', () => {
    const listing = judgeTools([{ name: 'report', inputSchema: { type: 'object' }, execution: { taskSupport: 'required' } }], true);

    expect(listing.skipped).toEqual([]);
    expect(listing.tools[0]).toMatchObject({ requiresTask: true, parameters: { type: 'object', properties: {} } });
  });

  it('reads draft-07 schemas with the draft-07 compiler', () => {
    const schema = { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', definitions: { n: { type: 'number' } }, properties: { x: { $ref: '#/definitions/n' } } };

    const listing = judgeTools([{ name: 'old', inputSchema: schema }], false);

    expect(listing.skipped).toEqual([]);
    expect(listing.tools[0]?.parameters).toEqual({ type: 'object', properties: { x: { type: 'number' } } });
  });
  it('leaves a schema naming a meta-schema it has not got to Ajv, which refuses it', () => {
    const listing = judgeTools(
      [
        { name: 'draft-04', inputSchema: { $schema: 'http://json-schema.org/draft-04/schema#', type: 'object' } },
        { name: 'vocabulary', inputSchema: { $schema: 'https://json-schema.org/draft/2020-12/meta/validation', type: 'object' } },
      ],
      false,
    );

    expect(listing.skipped).toEqual([{ name: 'draft-04', reason: expect.stringMatching(/^inputSchema is not valid JSON Schema: no schema with key or ref/) }]);
    expect(listing.tools.map((entry) => entry.tool.name)).toEqual(['vocabulary']);
  });
});

describe('fitSchemaForModel', () => {
  it('expands a schema that refers to itself a bounded number of times', () => {
    const schema = { type: 'object', properties: { name: { type: 'string' }, child: { $ref: '#' } } };

    const fitted = fitSchemaForModel(schema);

    const depth = (node: unknown): number => {
      const child = (node as { properties?: { child?: unknown } }).properties?.child;
      return child && typeof child === 'object' && 'properties' in child ? 1 + depth(child) : 0;
    };
    expect(depth(fitted)).toBe(2);
    expect(JSON.stringify(fitted)).not.toContain('$ref');
  });

  it('keeps properties whose names look like keywords', () => {
    const schema = { type: 'object', properties: { $ref: { type: 'string' }, definitions: { type: 'string' } } };

    expect(fitSchemaForModel(schema)).toEqual(schema);
  });
});
