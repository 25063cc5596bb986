/**
 * The dispatcher of lib/http over a list of front doors, with a door written here as a newcomer
 * would add one (a folder of lib/front-doors and a line in the list): it gets exactly the requests
 * it matches, answers its errors (and those raised before any door ran) in its own shape, and may
 * stream; the native API answers everything else.
 */
import { describe, expect, it } from 'vitest';
import { InputError } from '../../lib/core/errors.ts';
import { silentLogger } from '../../lib/core/logger.ts';
import { nativeFrontDoor } from '../../lib/front-doors/native/door.ts';
import { frontDoorErrorResponse, serveFrontDoors, serveFrontDoorsBuffered, withIdleLimit } from '../../lib/http/dispatch.ts';
import { readJsonObject } from '../../lib/http/body.ts';
import { errorResponse } from '../../lib/http/errors.ts';
import { EventStreamBody, isEventStreamResponse } from '../../lib/http/event-stream.ts';
import type { FrontDoor } from '../../lib/http/front-door.ts';
import { answer } from '../../lib/http/lambda/api-gateway.ts';
import type { HttpRequest } from '../../lib/http/types.ts';
import { textReply } from '../../lib/testing/scripted-model.ts';
import { agentFixture } from '../support/agent-fixture.ts';

/** A door of its own protocol: POST /echo {"message"} answers the agent's reply as plain text, errors as {"problem"}. */
const echoDoor: FrontDoor = {
  name: 'echo',
  matches: (request) => request.path === '/echo',
  async handle(request, services) {
    const { message } = readJsonObject(request, services.maxBodyBytes) as { message: string };
    const result = await services.agent.ask({ message });
    if (request.query?.stream !== '1') return { statusCode: 200, headers: { 'content-type': 'text/plain' }, body: result.reply };
    const body = new EventStreamBody();
    body.end(`data: ${result.reply}\n\n`);
    return { statusCode: 200, headers: { 'content-type': 'text/event-stream' }, body };
  },
  errorResponse(error, logger) {
    const native = errorResponse(error, logger);
    const { code } = (JSON.parse(native.body) as { error: { code: string } }).error;
    return { statusCode: native.statusCode, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ problem: code }) };
  },
  asksForStream: (request) => request.query?.stream === '1',
};

const DOORS = [echoDoor, nativeFrontDoor];

function services(replies: string[]) {
  const { agent, config } = agentFixture(replies.map((reply) => textReply(reply)));
  return { agent, logger: silentLogger, maxBodyBytes: config.http.maxBodyBytes };
}

const post = (path: string, body: string, query?: Record<string, string>): HttpRequest => ({ method: 'POST', path, headers: { 'content-type': 'application/json' }, body, ...(query ? { query } : {}) });

describe('front doors, dispatched from one list', () => {
  it('gives a door the requests it matches, and the native API every other path', async () => {
    const handle = serveFrontDoorsBuffered(DOORS, services(['from echo', 'from native']));
    expect(await handle(post('/echo', '{"message": "hi"}'))).toEqual({ statusCode: 200, headers: { 'content-type': 'text/plain' }, body: 'from echo' });
    const native = await handle(post('/conversations', '{"message": "hi"}'));
    expect(native.statusCode).toBe(201);
    expect(JSON.parse(native.body)).toMatchObject({ reply: 'from native', turn: 1 });
  });

  it('answers what a door throws in that door’s shape, with the status of lib/http/status.ts', async () => {
    const handle = serveFrontDoorsBuffered(DOORS, services([]));
    expect(await handle(post('/echo', 'not json'))).toMatchObject({ statusCode: 400, body: '{"problem":"malformed_json"}' });
    const unknown = await handle(post('/nowhere', '{}'));
    expect(unknown.statusCode).toBe(404);
    expect(JSON.parse(unknown.body)).toMatchObject({ error: { code: 'route_not_found' } });
  });

  it('answers an error raised before any door ran in the shape of the door the path is for', async () => {
    const unidentified = new InputError('unauthenticated', 'This API requires a Cognito user pool token in the Authorization header.');
    expect(frontDoorErrorResponse(DOORS, { method: 'POST', path: '/echo' }, unidentified, silentLogger)).toMatchObject({ statusCode: 401, body: '{"problem":"unauthenticated"}' });
    const native = frontDoorErrorResponse(DOORS, { method: 'POST', path: '/conversations' }, unidentified, silentLogger);
    expect(JSON.parse(native.body)).toEqual({ error: { code: 'unauthenticated', message: unidentified.message } });
    const event = { httpMethod: 'POST', path: '/echo', headers: {}, queryStringParameters: null, body: null, isBase64Encoded: false, requestContext: {} };
    expect(await answer(event, () => Promise.reject(unidentified), { logger: silentLogger, allowedOrigins: [], frontDoors: DOORS })).toMatchObject({ statusCode: 401, body: '{"problem":"unauthenticated"}' });
  });

  it('passes a door’s event stream on where the entry can stream, and collects it whole where it cannot', async () => {
    const streamed = await serveFrontDoors(DOORS, { ...services(['streamed']), heartbeatMs: 1_000 })(post('/echo', '{"message": "hi"}', { stream: '1' }));
    expect(isEventStreamResponse(streamed)).toBe(true);
    const buffered = await serveFrontDoorsBuffered(DOORS, services(['collected']))(post('/echo', '{"message": "hi"}', { stream: '1' }));
    expect(buffered).toEqual({ statusCode: 200, headers: { 'content-type': 'text/event-stream' }, body: 'data: collected\n\n' });
  });

  it('leaves the invocation’s whole time to a turn whose door says its client asked for a stream, and holds any other JSON turn to the idle limit', () => {
    const request = (query?: Record<string, string>): HttpRequest => ({ ...post('/echo', '{}', query), deadlineAt: 900_000 });
    expect(withIdleLimit(DOORS, request({ stream: '1' }), 0, 270_000).deadlineAt).toBe(900_000);
    expect(withIdleLimit(DOORS, request(), 0, 270_000).deadlineAt).toBe(270_000);
  });

  it('answers a path no door of the list claims with 404 in the native shape', async () => {
    const response = await serveFrontDoorsBuffered([echoDoor], services([]))(post('/conversations', '{}'));
    expect(response.statusCode).toBe(404);
    expect(JSON.parse(response.body)).toMatchObject({ error: { code: 'route_not_found' } });
  });
});
