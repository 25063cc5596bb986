/**
 * The stream function bundled as a stack with otelExporterEndpoint bundles it (infra/bundling.ts
 * with telemetry: lib/telemetry.ts and the OpenTelemetry SDK inside, loaded on demand), loaded in
 * a fresh Node process as Lambda loads it and asked a question through an API Gateway event with
 * a traceparent header: its spans reach a local OTLP/HTTP receiver, joined to the caller's trace.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build, type Metafile } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundledConfig } from '../../infra/bundled-config.ts';
import { BUNDLED_AGENT_CONFIG, DEFAULT_FUNCTION_BUNDLE, PROJECT_ROOT, functionBuildOptions } from '../../infra/bundling.ts';
import { ENV } from '../../lib/config/environment.ts';
import { invokeStreamingBundle, localFunctionEnvironment } from '../support/invoke-bundle.ts';
import { startLocalTable, type LocalTable } from '../support/dynalite.ts';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver.ts';
import { startScriptedOpenAIServer, textReply, type ScriptedOpenAIServer } from '../support/scripted-openai-server.ts';

const fixture = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'test/fixtures/apigateway/rest-proxy-iam.json'), 'utf8'));
const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

let folder: string;
let bundle: string;
let metafile: Metafile;
let table: LocalTable;
let model: ScriptedOpenAIServer;
let receiver: OtlpReceiver;

beforeAll(async () => {
  folder = mkdtempSync(path.join(tmpdir(), 'bundle-telemetry-'));
  bundle = path.join(folder, 'index.mjs');
  const result = await build({ ...functionBuildOptions(path.join(PROJECT_ROOT, 'functions/stream.ts'), bundle, { ...DEFAULT_FUNCTION_BUNDLE, telemetry: true }), metafile: true });
  metafile = result.metafile;
  writeFileSync(path.join(folder, BUNDLED_AGENT_CONFIG), bundledConfig(JSON.stringify({ mcpServers: {} }), 'agent.json'));
  [table, model, receiver] = await Promise.all([startLocalTable(), startScriptedOpenAIServer([textReply('你好！')]), startOtlpReceiver()]);
}, 120_000);

afterAll(async () => {
  await Promise.all([table?.close(), model?.close(), receiver?.close()]);
  if (folder) rmSync(folder, { recursive: true, force: true });
});

describe('the stream function bundled with telemetry', () => {
  it('carries the SDK, and exports a JSON turn\'s spans joined to the traceparent of the API Gateway event', async () => {
    expect(Object.keys(metafile.inputs).some((file) => file.includes('node_modules/@opentelemetry/sdk-trace/'))).toBe(true);
    const event = {
      ...fixture,
      path: '/conversations/bundled-traced/messages',
      pathParameters: { conversationId: 'bundled-traced' },
      headers: { ...fixture.headers, Accept: 'application/json', traceparent: TRACEPARENT },
      multiValueHeaders: { ...fixture.multiValueHeaders, Accept: ['application/json'], traceparent: [TRACEPARENT] },
      body: JSON.stringify({ message: '你好' }),
    };
    const [answer] = await invokeStreamingBundle({ file: bundle, folder }, [event], {
      ...localFunctionEnvironment({ agentConfig: path.join(folder, BUNDLED_AGENT_CONFIG), table, modelBaseURL: model.baseURL }),
      [ENV.otelExporterEndpoint]: receiver.url,
    });

    expect(JSON.parse(answer!.body)).toMatchObject({ reply: '你好！', stopReason: 'completed' });
    // Flushed before the turn's result was returned: nothing left to wait for.
    const turn = receiver.spans.find((span) => span.name === 'invoke_agent mcp-agent');
    expect(turn).toMatchObject({ traceId: '4bf92f3577b34da6a3ce929d0e0e4736', parentSpanId: '00f067aa0ba902b7' });
    expect(receiver.spans.filter((span) => span.parentSpanId === turn!.spanId).map((span) => span.name)).toContain('chat gpt-4-turbo');
  }, 120_000);
});
