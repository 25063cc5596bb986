/**
 * The stream function bundled as the stack bundles it carries no Ajv: tool schemas of the common
 * subset are validated by lib/json-schema/interpret.ts, and Ajv (for the rest) is compiled beside
 * the function (ajv-compilers.cjs) and required on first use (functions/substitutes/
 * ajv-compilers-beside.ts). Loaded in a fresh Node process as Lambda loads it, a turn whose model
 * calls two tools with bad arguments gets both calls rejected before the server sees them: one
 * schema judged by the interpreter, one (a `pattern`) by Ajv from beside. The MCP SDK's own Ajv
 * validator is left out too (without-ajv.ts): the turn lists tools only because every Client is
 * given the project's validator (lib/adapters/mcp/connect.ts). Without the file beside, the tool
 * that needs Ajv is left out and the other still works.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build, type Metafile } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundledConfig } from '../../infra/bundled-config.ts';
import { BUNDLED_AGENT_CONFIG, BUNDLED_AJV_COMPILERS, PROJECT_ROOT, ajvCompilersBuildOptions, functionBuildOptions } from '../../infra/bundling.ts';
import { ENV } from '../../lib/config/environment.ts';
import { invokeStreamingBundle, type BundleAnswer, localFunctionEnvironment } from '../support/invoke-bundle.ts';
import { startLocalTable, type LocalTable } from '../support/dynalite.ts';
import { startScriptedOpenAIServer, textReply, toolCallsReply, type ScriptedOpenAIServer } from '../support/scripted-openai-server.ts';

const SERVER = path.join(PROJECT_ROOT, 'test/fixtures/schema-tools-server.ts');
const fixture = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'test/fixtures/apigateway/rest-proxy-iam.json'), 'utf8'));

let folder: string;
let bundle: string;
let metafile: Metafile;
let table: LocalTable;
let model: ScriptedOpenAIServer;

beforeAll(async () => {
  folder = mkdtempSync(path.join(tmpdir(), 'bundle-ajv-beside-'));
  bundle = path.join(folder, 'index.mjs');
  const [result] = await Promise.all([
    build({ ...functionBuildOptions(path.join(PROJECT_ROOT, 'functions/stream.ts'), bundle), metafile: true }),
    build(ajvCompilersBuildOptions(path.join(folder, BUNDLED_AJV_COMPILERS))),
  ]);
  metafile = result.metafile;
  writeFileSync(path.join(folder, BUNDLED_AGENT_CONFIG), bundledConfig(JSON.stringify({ mcpServers: { tools: { command: process.execPath, args: [SERVER] } }, model: { maxRetries: 0 } }), 'agent.json'));
  [table, model] = await Promise.all([
    startLocalTable(),
    startScriptedOpenAIServer([
      toolCallsReply([
        { id: 'call_add', name: 'add', arguments: { a: 'two', b: 3, c: 1 } },
        { id: 'call_label', name: 'label', arguments: { code: 'abc' } },
      ]),
      textReply('Both were refused.'),
      textReply('Only add is here.'),
    ]),
  ]);
}, 120_000);

afterAll(async () => {
  await Promise.all([table?.close(), model?.close()]);
  if (folder) rmSync(folder, { recursive: true, force: true });
});

const question = (conversationId: string, message: string) => ({
  ...fixture,
  path: `/conversations/${conversationId}/messages`,
  pathParameters: { conversationId },
  headers: { ...fixture.headers, Accept: 'application/json' },
  multiValueHeaders: { ...fixture.multiValueHeaders, Accept: ['application/json'] },
  body: JSON.stringify({ message }),
});

async function invokeBundle(events: unknown[]): Promise<BundleAnswer[]> {
  return invokeStreamingBundle({ file: bundle, folder }, events, {
    ...localFunctionEnvironment({ agentConfig: path.join(folder, BUNDLED_AGENT_CONFIG), table, modelBaseURL: model.baseURL }),
    [ENV.authMode]: 'iam',
  });
}

type ChatRequest = { messages: { role: string; tool_call_id?: string; content?: string }[]; tools?: { function: { name: string } }[] };
const toolMessage = (request: unknown, id: string) => (request as ChatRequest).messages.find((message) => message.role === 'tool' && message.tool_call_id === id)?.content ?? '';

describe('the stream function bundled without Ajv', () => {
  it('carries neither Ajv nor fast-uri, only the stand-ins that load Ajv from beside it', () => {
    const inputs = Object.keys(Object.values(metafile.outputs)[0]!.inputs);
    expect(inputs.filter((file) => /node_modules\/(ajv|ajv-formats|fast-uri)\//.test(file))).toEqual([]);
    expect(inputs).toEqual(expect.arrayContaining(['lib/json-schema/interpret.ts', 'functions/substitutes/ajv-compilers-beside.ts', 'functions/substitutes/without-ajv.ts']));
    expect(readFileSync(path.join(folder, BUNDLED_AJV_COMPILERS), 'utf8')).toContain('must match pattern');
  });

  it('rejects bad tool arguments before the server sees them: by the interpreter, and by Ajv from beside the function for a pattern', async () => {
    const [answer] = await invokeBundle([question('bundled-ajv', 'Add and label.')]);

    expect(answer!.statusCode).toBe(200);
    expect(JSON.parse(answer!.body)).toMatchObject({ reply: 'Both were refused.', toolCalls: [{ name: 'add', ok: false }, { name: 'label', ok: false }] });
    const second = model.requests[1]!.body;
    expect(toolMessage(second, 'call_add')).toContain('"a" must be number');
    expect(toolMessage(second, 'call_add')).toContain('unexpected field "c"');
    expect(toolMessage(second, 'call_label')).toContain('"code" must match pattern "^[A-Z]{3}$"');
    expect(JSON.stringify(second)).not.toContain(' got ');
  }, 150_000);

  it('leaves out only the tool that needs Ajv when the file beside is missing', async () => {
    rmSync(path.join(folder, BUNDLED_AJV_COMPILERS));

    const [answer] = await invokeBundle([question('bundled-ajv-missing', 'Which tools?')]);

    expect(JSON.parse(answer!.body)).toMatchObject({ reply: 'Only add is here.' });
    expect(((model.requests[2]!.body as ChatRequest).tools ?? []).map((tool) => tool.function.name)).toEqual(['add']);
  }, 150_000);
});
