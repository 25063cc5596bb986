/**
 * The stream function bundled as a stack with files on bundles it (infra/bundling.ts with files:
 * the S3 file store and its client, without the event-stream codec), loaded in a fresh Node process
 * as Lambda loads it (AWS_LAMBDA_FUNCTION_NAME set, so only FILES_BUCKET may hold files), with its
 * files in a local S3-compatible server: a turn uploads a file through file_tool, the owner lists
 * and downloads it through API Gateway events, and DELETE removes it from the bucket.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundledConfig } from '../../infra/bundled-config.ts';
import { BUNDLED_AGENT_CONFIG, DEFAULT_FUNCTION_BUNDLE, PROJECT_ROOT, functionBuildOptions } from '../../infra/bundling.ts';
import { ENV } from '../../lib/config/environment.ts';
import { invokeStreamingBundle, type BundleAnswer, localFunctionEnvironment } from '../support/invoke-bundle.ts';
import { startLocalTable, type LocalTable } from '../support/dynalite.ts';
import { startLocalS3, type LocalS3 } from '../support/local-s3.ts';
import { startScriptedOpenAIServer, textReply, toolCallsReply, type ScriptedOpenAIServer } from '../support/scripted-openai-server.ts';

const fixture = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'test/fixtures/apigateway/rest-proxy-iam.json'), 'utf8'));
const REPORT = '# Report\n\nShanghai: 24 °C.\n';

let folder: string;
let bundle: string;
let table: LocalTable;
let s3: LocalS3;
let model: ScriptedOpenAIServer;

beforeAll(async () => {
  folder = mkdtempSync(path.join(tmpdir(), 'bundle-files-'));
  bundle = path.join(folder, 'index.mjs');
  await build(functionBuildOptions(path.join(PROJECT_ROOT, 'functions/stream.ts'), bundle, { ...DEFAULT_FUNCTION_BUNDLE, files: true }));
  writeFileSync(path.join(folder, BUNDLED_AGENT_CONFIG), bundledConfig(JSON.stringify({ files: true, model: { maxRetries: 0 } }), 'agent.json'));
  [table, s3, model] = await Promise.all([
    startLocalTable(),
    startLocalS3(),
    startScriptedOpenAIServer([toolCallsReply([{ id: 'up', name: 'file_tool', arguments: { command: 'upload', filename: 'report.md', description: 'The report', content: REPORT } }]), textReply('Saved report.md.')]),
  ]);
}, 120_000);

afterAll(async () => {
  await Promise.all([table?.close(), s3?.close(), model?.close()]);
  if (folder) rmSync(folder, { recursive: true, force: true });
});

/** An API Gateway REST proxy event of the fixture's IAM caller. */
const request = (method: string, requestPath: string, body?: unknown) => ({
  ...fixture,
  httpMethod: method,
  path: requestPath,
  headers: { ...fixture.headers, Accept: 'application/json' },
  multiValueHeaders: { ...fixture.multiValueHeaders, Accept: ['application/json'] },
  body: body === undefined ? null : JSON.stringify(body),
});


/** Invokes the bundle's handler with each event in turn (test/support/invoke-bundle.ts). */
async function invokeBundle(events: unknown[]): Promise<BundleAnswer[]> {
  return invokeStreamingBundle({ file: bundle, folder }, events, {
    [ENV.lambdaFunctionName]: 'stream',
    // s3rver checks the keys a request is signed with.
    ...localFunctionEnvironment({ agentConfig: path.join(folder, BUNDLED_AGENT_CONFIG), table, modelBaseURL: model.baseURL, credentials: 'S3RVER' }),
    [ENV.filesBucket]: s3.bucket,
    AWS_ENDPOINT_URL_S3: s3.endpoint,
    [ENV.authMode]: 'iam',
  });
}

const objectKeys = async () => ((await s3.client.send(new ListObjectsV2Command({ Bucket: s3.bucket }))).Contents ?? []).map((object) => object.Key);

describe('the stream function bundled with files on', () => {
  it('keeps a turn’s files in the bucket, serves them to their owner, and deletes them with the conversation', async () => {
    // Act
    const [turn, listed, downloaded] = await invokeBundle([
      request('POST', '/conversations/bundled-files/messages', { message: 'Write the report.' }),
      request('GET', '/conversations/bundled-files/files'),
      request('GET', '/conversations/bundled-files/files/report.md'),
    ]);

    // Assess
    expect(JSON.parse(turn!.body)).toMatchObject({ reply: 'Saved report.md.', toolCalls: [{ name: 'file_tool', ok: true }], files: [{ name: 'report.md' }] });
    expect(JSON.parse(listed!.body)).toMatchObject({ conversationId: 'bundled-files', files: [{ name: 'report.md', description: 'The report', bytes: Buffer.byteLength(REPORT) }] });
    expect(downloaded).toMatchObject({ statusCode: 200, body: REPORT, headers: { 'content-type': 'text/markdown; charset=utf-8' } });
    expect(await objectKeys()).toEqual([expect.stringMatching(/^conversations\/[0-9a-f]{64}\/bundled-files\/report\.md$/)]);

    // Act
    const [deleted, afterwards] = await invokeBundle([request('DELETE', '/conversations/bundled-files'), request('GET', '/conversations/bundled-files/files/report.md')]);

    // Assess
    expect(deleted!.statusCode).toBe(204);
    expect(afterwards!.statusCode).toBe(404);
    expect(await objectKeys()).toEqual([]);
  }, 150_000);
});
