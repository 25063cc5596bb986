/**
 * The stream function bundled as a stack on Bedrock bundles it (infra/bundling.ts with
 * modelProvider bedrock: the real Bedrock provider and event streams, no OpenAI-compatible
 * provider, bearer tokens from the environment only), loaded in a fresh Node process as Lambda
 * loads it, with static credentials in the environment as Lambda gives a role's, and asked
 * questions through API Gateway events: answered through the local Bedrock stand-in, as SSE
 * (ConverseStream's event streams) and as JSON (Converse), with a tool round.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build, type Metafile } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundledConfig } from '../../infra/bundled-config.ts';
import { BEDROCK_FUNCTION_BUNDLE, BUNDLED_AGENT_CONFIG, PROJECT_ROOT, functionBuildOptions } from '../../infra/bundling.ts';
import { ENV } from '../../lib/config/environment.ts';
import { converseText, converseToolUse } from '../support/bedrock-stand-in-events.ts';
import { STAND_IN_CREDENTIALS, STAND_IN_REGION, startBedrockStandIn, type BedrockStandIn } from '../support/bedrock-stand-in.ts';
import { invokeStreamingBundle, type BundleAnswer } from '../support/invoke-bundle.ts';
import { startLocalTable, type LocalTable } from '../support/dynalite.ts';

const MODEL = 'us.amazon.nova-pro-v1:0';
const ADD_SERVER = path.join(PROJECT_ROOT, 'test/bench/overhead/add-server.ts');
const fixture = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'test/fixtures/apigateway/rest-proxy-iam.json'), 'utf8'));


let folder: string;
let bundle: string;
let metafile: Metafile;
let table: LocalTable;

beforeAll(async () => {
  folder = mkdtempSync(path.join(tmpdir(), 'bundle-bedrock-'));
  bundle = path.join(folder, 'index.mjs');
  const result = await build({ ...functionBuildOptions(path.join(PROJECT_ROOT, 'functions/stream.ts'), bundle, BEDROCK_FUNCTION_BUNDLE), metafile: true });
  metafile = result.metafile;
  writeFileSync(path.join(folder, BUNDLED_AGENT_CONFIG), bundledConfig(JSON.stringify({ mcpServers: { calculator: { command: process.execPath, args: [ADD_SERVER] } } }), 'agent.json'));
  table = await startLocalTable();
}, 120_000);

afterAll(async () => {
  await table?.close();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

/** A question to the stream function, as API Gateway sends it: as SSE, or for JSON. */
const question = (conversationId: string, message: string, accept: string) => ({
  ...fixture,
  path: `/conversations/${conversationId}/messages`,
  pathParameters: { conversationId },
  headers: { ...fixture.headers, Accept: accept },
  multiValueHeaders: { ...fixture.multiValueHeaders, Accept: [accept] },
  body: JSON.stringify({ message }),
});

/** Invokes the bundle's handler with each event in turn (test/support/invoke-bundle.ts). */
async function invokeBundle(events: unknown[], variables: Record<string, string> = {}): Promise<BundleAnswer[]> {
  return invokeStreamingBundle({ file: bundle, folder }, events, {
    [ENV.agentConfig]: path.join(folder, BUNDLED_AGENT_CONFIG),
    [ENV.conversationsTable]: table.tableName,
    [ENV.awsDynamodbEndpoint]: table.endpoint,
    [ENV.modelProvider]: 'bedrock',
    [ENV.modelName]: MODEL,
    BEDROCK_ENDPOINT: standIn.endpoint,
    // As Lambda gives a function its role's credentials: in the environment (dynalite takes any).
    AWS_REGION: STAND_IN_REGION,
    AWS_ACCESS_KEY_ID: STAND_IN_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: STAND_IN_CREDENTIALS.secretAccessKey,
    ...variables,
  });
}

let standIn: BedrockStandIn;
afterAll(async () => {
  await standIn?.close();
});

describe('the stream function bundled for Bedrock', () => {
  it('answers as SSE through ConverseStream and as JSON through Converse, with a tool round, signed with the credentials in the environment', async () => {
    standIn = await startBedrockStandIn([
      converseToolUse([{ toolUseId: 'tooluse_add', name: 'add', input: { a: 2, b: 3 } }]),
      converseText('2 + 3 = 5.'),
      converseText('Still 5.'),
    ]);

    const [streamed, buffered] = await invokeBundle([question('bundled-bedrock', 'What is 2 + 3?', 'text/event-stream'), question('bundled-bedrock', 'And again?', 'application/json')]);

    expect(streamed!.statusCode).toBe(200);
    expect(streamed!.body).toContain('event: text-delta');
    const turnEnd = streamed!.body.split('\n\n').find((event) => event.startsWith('event: turn-end'));
    expect(JSON.parse(turnEnd!.split('\ndata: ')[1]!)).toMatchObject({ reply: '2 + 3 = 5.', stopReason: 'completed', rounds: 2, toolCalls: [{ name: 'add', ok: true }] });
    expect(buffered!.statusCode).toBe(200);
    expect(JSON.parse(buffered!.body)).toMatchObject({ reply: 'Still 5.', stopReason: 'completed', turn: 2 });
    expect(standIn.requests.map((request) => [request.operation, request.modelId, request.rejected])).toEqual([
      ['converse-stream', MODEL, undefined],
      ['converse-stream', MODEL, undefined],
      ['converse', MODEL, undefined],
    ]);
    expect(String(standIn.requests[0]!.headers.authorization)).toMatch(new RegExp(`^AWS4-HMAC-SHA256 Credential=${STAND_IN_CREDENTIALS.accessKeyId}/\\d{8}/${STAND_IN_REGION}/bedrock/aws4_request`));
    await standIn.close();
  }, 120_000);

  it('still sends a Bedrock API key from AWS_BEARER_TOKEN_BEDROCK, as a bearer token, though SSO tokens are left out', async () => {
    standIn = await startBedrockStandIn([converseText('unused')]);

    const [answer] = await invokeBundle([question('bundled-bedrock-key', 'Hello?', 'application/json')], { AWS_BEARER_TOKEN_BEDROCK: 'bedrock-api-key-for-test' });

    // The stand-in accepts only SigV4, so the key is refused, as a wrong one would be by Bedrock.
    expect(standIn.requests[0]!.headers.authorization).toBe('Bearer bedrock-api-key-for-test');
    expect(standIn.requests[0]!.rejected).toBeDefined();
    expect(JSON.parse(answer!.body).error).toMatchObject({ code: 'model_auth_failed' });
    await standIn.close();
  }, 120_000);

  it('carries the Bedrock client and the event-stream codec, and neither the OpenAI-compatible adapter nor the SSO OIDC client', () => {
    const inputs = Object.keys(Object.values(metafile.outputs)[0]!.inputs);
    expect(inputs.some((file) => file.includes('node_modules/@aws-sdk/client-bedrock-runtime/'))).toBe(true);
    expect(inputs.some((file) => file.includes('node_modules/@smithy/core/dist-es/submodules/event-streams/'))).toBe(true);
    expect(inputs.filter((file) => file.startsWith('lib/adapters/openai/'))).toEqual(['lib/adapters/openai/retry.ts']);
    expect(inputs.filter((file) => /node_modules\/(@aws-sdk\/nested-clients|@aws-sdk\/token-providers)\//.test(file))).toEqual([]);
    expect(inputs).toContain('functions/substitutes/without-openai.ts');
    expect(inputs).toContain('functions/substitutes/environment-bearer-token.ts');
  });
});
