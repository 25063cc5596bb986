/**
 * What a caller learns of a model provider's failure through npm start: the code and a message of
 * the service's own, never the provider's text (which may name internal hosts, as a gateway's
 * "upstream http://10.0.0.5:8000" does); that text goes to the log.
 */
import { describe, expect, it } from 'vitest';
import { createServer } from 'node:net';
import { demoServerYml, getJson, postJson, serversPerTest } from '../support/configured-local-server.ts';
import { postForEvents } from '../support/sse-client.ts';
import { toolCallsReply } from '../support/scripted-openai-server.ts';

const INTERNAL = 'http://10.0.0.5:8000';
/** A gateway's 500, its body naming the upstream it could not reach. */
const gatewayFailure = () => ({
  status: 500,
  body: { error: { message: `upstream ${INTERNAL}/v1/chat/completions: connect ECONNREFUSED 10.0.0.5:8000`, type: 'server_error', param: null, code: null } },
});
const YML = `model: { maxRetries: 0 }\n${demoServerYml()}`;

describe('model provider failures through npm start', () => {
  const servers = serversPerTest();

  it('answers JSON, SSE and /v1 callers with the code and a clean message; the provider’s text is in the log', async () => {
    const model = await servers.model([gatewayFailure(), gatewayFailure(), gatewayFailure()]);
    const { server } = await servers.local(YML, model);

    const json = await postJson(`${server.url}/conversations/leak-json/messages`, { message: '上海天气怎么样？' });
    const sse = await postForEvents(`${server.url}/conversations/leak-sse/messages`, { body: { message: '上海天气怎么样？' } });
    const v1 = await postJson(`${server.url}/v1/chat/completions`, { model: 'mcp-agent', messages: [{ role: 'user', content: '上海天气怎么样？' }] });

    expect(json.status).toBe(502);
    expect(json.body.error).toEqual({ code: 'model_unavailable', message: expect.stringContaining('The language model failed (model_unavailable)') });
    const errorEvent = sse.events.at(-1)!;
    expect(errorEvent.event).toBe('error');
    expect(errorEvent.data).toMatchObject({ error: { code: 'model_unavailable' }, status: 502 });
    expect(v1.status).toBe(502);
    expect(v1.body.error).toMatchObject({ code: 'model_unavailable', type: 'server_error' });
    for (const body of [json.body, errorEvent.data, v1.body]) {
      expect(JSON.stringify(body)).not.toMatch(/10\.0\.0\.5|upstream|ECONNREFUSED/);
      expect(JSON.stringify(body)).toContain('HTTP 500');
    }
    // The operator still finds the provider's words.
    expect(server.output()).toContain(`upstream ${INTERNAL}/v1/chat/completions`);
  });

  it('keeps the provider’s text out of a stored turn that failed after its tools ran', async () => {
    const model = await servers.model([toolCallsReply([{ id: 'call_weather', name: 'getWeather', arguments: { city: '上海' } }]), gatewayFailure()]);
    const { server } = await servers.local(YML, model);

    const result = await postJson(`${server.url}/conversations/leak-stored/messages`, { message: '上海天气怎么样？' });
    const stored = await getJson(`${server.url}/conversations/leak-stored`);

    // A stored turn is the answer (200), its failure under `error`.
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ stopReason: 'error', error: { code: 'model_unavailable' } });
    expect(stored.body.turns[0]).toMatchObject({ stopReason: 'error' });
    for (const body of [result.body, stored.body]) expect(JSON.stringify(body)).not.toMatch(/10\.0\.0\.5|upstream/);
    expect(server.output()).toContain(`upstream ${INTERNAL}`);
  });

  it('does not name the model endpoint’s host to a caller when nothing listens there', async () => {
    // A port that was free a moment ago: nothing listens on it.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as { port: number }).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const model = await servers.model([]);
    const { server } = await servers.local(YML, { ...model, baseURL: `http://127.0.0.1:${port}/v1` });

    const json = await postJson(`${server.url}/conversations/leak-host/messages`, { message: '上海天气怎么样？' });

    expect(json.status).toBe(502);
    expect(json.body.error.code).toBe('model_unavailable');
    expect(json.body.error.message).toContain('ECONNREFUSED');
    expect(json.body.error.message).not.toContain(`127.0.0.1:${port}`);
    expect(server.output()).toContain(`127.0.0.1:${port}`);
  });
});
