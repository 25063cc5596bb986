/**
 * A JSON Schema 2020-12 inputSchema (SEP-1613, SEP-2106: `$schema`, `$defs`, `$ref`, `$anchor`,
 * allOf/anyOf, if/then/else, additionalProperties) from a real MCP SDK server: the gateway keeps it
 * exactly as listed (`inputSchema`), and what the model is offered (`parameters`, fitted for model
 * APIs: references inlined, `$defs` and `$schema` dropped) accepts and refuses the same arguments.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpGateway } from '../../lib/adapters/mcp/gateway.ts';
import type { JsonObject } from '../../lib/core/json.ts';
import type { ToolDefinition, ToolGateway } from '../../lib/core/ports/tools.ts';
import { compileSchema } from '../../lib/json-schema/compile.ts';
import { gatewayOptions } from '../support/mcp-servers.ts';

/** The conformance suite's json-schema-2020-12 fixture, and the same reaching its definition by its anchor. */
const CONTACT: JsonObject = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: { address: { $anchor: 'addressDef', type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
  properties: {
    name: { type: 'string' },
    address: { $ref: '#/$defs/address' },
    contactMethod: { type: 'string', enum: ['phone', 'email'] },
    phone: { type: 'string' },
    email: { type: 'string' },
  },
  allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
  if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
  then: { required: ['phone'] },
  else: { required: ['email'] },
  additionalProperties: false,
};
const BY_ANCHOR: JsonObject = { ...CONTACT, properties: { ...(CONTACT.properties as JsonObject), address: { $ref: '#addressDef' } } };

function contactServer(): Server {
  const server = new Server({ name: 'contacts', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [
      { name: 'contact', description: 'contacts someone', inputSchema: CONTACT },
      { name: 'contact_by_anchor', description: 'contacts someone', inputSchema: BY_ANCHOR },
    ],
  }));
  return server;
}

describe('a JSON Schema 2020-12 inputSchema through the gateway', () => {
  let gateway: ToolGateway;
  let tools: ToolDefinition[];

  beforeAll(async () => {
    gateway = createMcpGateway(gatewayOptions([{ name: 'contacts', type: 'in-memory', connect: (transport) => contactServer().connect(transport) }]));
    tools = await gateway.listTools();
  });

  afterAll(async () => {
    await gateway.close();
  });

  it('keeps the schema exactly as the server listed it', () => {
    expect(tools.map((tool) => tool.inputSchema)).toEqual([CONTACT, BY_ANCHOR]);
  });

  it('offers the model the same constraints, with the definitions inlined (by pointer or by anchor)', () => {
    const { $schema: _dialect, $defs: _definitions, ...rest } = CONTACT;
    const { $anchor: _anchor, ...address } = (CONTACT.$defs as { address: JsonObject }).address;
    const inlined = { ...rest, properties: { ...(CONTACT.properties as JsonObject), address } };

    expect(tools[0]?.parameters).toEqual(inlined);
    expect(tools[1]?.parameters).toEqual(inlined);
  });

  it.each([
    [{ name: 'Ada', email: 'ada@example.org', address: { street: 'Main St', city: 'London' } }, true],
    [{ name: 'Ada', contactMethod: 'phone', phone: '123' }, true],
    [{ name: 'Ada' }, false],
    [{ contactMethod: 'phone', email: 'ada@example.org' }, false],
    [{ email: 'ada@example.org', address: { city: 7 } }, false],
    [{ email: 'ada@example.org', nickname: 'A' }, false],
  ])('judges %j as the listed schema does (valid: %s)', (args, valid) => {
    for (const tool of tools) {
      const listed = compileSchema(tool.inputSchema!);
      const offered = compileSchema(tool.parameters);
      if ('error' in listed || 'error' in offered) throw new Error('a schema did not compile');
      expect([listed.validate(args), offered.validate(args)]).toEqual([valid, valid]);
    }
  });
});
