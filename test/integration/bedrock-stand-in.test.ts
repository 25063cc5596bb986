/**
 * The Bedrock stand-in itself: it must refuse what Bedrock refuses, or the adapter's tests prove
 * nothing. Requests go through the real SDK client (HTTP/2), and by fetch for HTTP/1.1.
 */
import { ConverseCommand, ValidationException, type ConverseRequest } from '@aws-sdk/client-bedrock-runtime';
import { afterEach, describe, expect, it } from 'vitest';
import { createBedrockClient } from '../../lib/adapters/bedrock/client.ts';
import { converseText } from '../support/bedrock-stand-in-events.ts';
import { STAND_IN_CREDENTIALS, STAND_IN_REGION, startBedrockStandIn, type BedrockStandIn } from '../support/bedrock-stand-in.ts';

let standIn: BedrockStandIn | undefined;
afterEach(async () => {
  await standIn?.close();
  standIn = undefined;
});

async function send(input: Omit<ConverseRequest, 'modelId'>) {
  standIn = await startBedrockStandIn([converseText('ok')]);
  const client = createBedrockClient({ region: STAND_IN_REGION, endpoint: standIn.endpoint, credentials: STAND_IN_CREDENTIALS });
  return client.send(new ConverseCommand({ modelId: 'amazon.nova-lite-v1:0', ...input })).then(
    () => undefined,
    (error: unknown) => error,
  );
}

const tool = { toolSpec: { name: 'getWeather', description: 'Weather of a city', inputSchema: { json: { type: 'object', properties: { city: { type: 'string' } } } } } };
const call = (toolUseId: string) => ({ toolUse: { toolUseId, name: 'getWeather', input: {} } });
const result = (toolUseId: string) => ({ toolResult: { toolUseId, content: [{ text: 'sunny' }] } });

describe('the Bedrock stand-in', () => {
  it('answers a valid Converse request over HTTP/2', async () => {
    const error = await send({ messages: [{ role: 'user', content: [{ text: 'hi' }] }] });

    expect(error).toBeUndefined();
    expect(standIn!.requests[0]!.httpVersion).toBe('2.0');
  });

  it.each([
    ['roles that do not alternate', { messages: [{ role: 'user', content: [{ text: 'a' }] }, { role: 'user', content: [{ text: 'b' }] }] }, 'must alternate between user and assistant'],
    ['a conversation that starts with the assistant', { messages: [{ role: 'assistant', content: [{ text: 'a' }] }] }, 'must start with a user message'],
    ['a blank text block', { messages: [{ role: 'user', content: [{ text: ' ' }] }] }, 'is blank'],
    [
      'a toolUse without its toolResult',
      { toolConfig: { tools: [tool] }, messages: [{ role: 'user', content: [{ text: 'a' }] }, { role: 'assistant', content: [call('t1'), call('t2')] }, { role: 'user', content: [result('t1')] }] },
      'Expected toolResult blocks at messages.2.content for the following Ids: t2',
    ],
    [
      'a toolResult that answers no toolUse',
      { toolConfig: { tools: [tool] }, messages: [{ role: 'user', content: [{ text: 'a' }] }, { role: 'assistant', content: [call('t1')] }, { role: 'user', content: [result('t1'), result('t9')] }] },
      'exceeds the number of toolUse blocks',
    ],
    [
      'a tool-use id outside [a-zA-Z0-9_-]',
      { toolConfig: { tools: [tool] }, messages: [{ role: 'user', content: [{ text: 'a' }] }, { role: 'assistant', content: [call('functions.getWeather:0')] }, { role: 'user', content: [result('functions.getWeather:0')] }] },
      'failed to satisfy constraint',
    ],
    ['tool blocks without a toolConfig', { messages: [{ role: 'user', content: [{ text: 'a' }] }, { role: 'assistant', content: [call('t1')] }, { role: 'user', content: [result('t1')] }] }, 'toolConfig field must be defined'],
    ['a toolSpec whose schema is not an object schema', { toolConfig: { tools: [{ toolSpec: { name: 'x', inputSchema: { json: { type: 'string' } } } }] }, messages: [{ role: 'user', content: [{ text: 'a' }] }] }, 'must be a JSON schema of type object'],
    ['a tool name outside [a-zA-Z0-9_-]', { toolConfig: { tools: [{ toolSpec: { name: 'get.weather', inputSchema: { json: { type: 'object' } } } }] }, messages: [{ role: 'user', content: [{ text: 'a' }] }] }, 'toolSpec.name'],
  ])('refuses %s with a ValidationException', async (_violation, input, message) => {
    const error = await send(input as Omit<ConverseRequest, 'modelId'>);

    expect(error).toBeInstanceOf(ValidationException);
    expect((error as Error).message).toContain(message);
  });

  it('speaks HTTP/1.1 too, and refuses an unsigned request as Bedrock does', async () => {
    standIn = await startBedrockStandIn([converseText('ok')]);

    const response = await fetch(`${standIn.endpoint}/model/amazon.nova-lite-v1%3A0/converse`, { method: 'POST', body: '{"messages":[]}', headers: { 'content-type': 'application/json' } });

    expect(response.status).toBe(403);
    expect(response.headers.get('x-amzn-errortype')).toMatch(/^MissingAuthenticationTokenException:/);
    expect(await response.json()).toEqual({ message: 'Missing Authentication Token' });
    expect(standIn.requests[0]!.httpVersion).toBe('1.1');
  });

  it('refuses a request signed for another service', async () => {
    standIn = await startBedrockStandIn([converseText('ok')]);
    const authorization = 'AWS4-HMAC-SHA256 Credential=AKIDSTANDIN00000000/20260101/us-east-1/s3/aws4_request, SignedHeaders=host;x-amz-date, Signature=' + '0'.repeat(64);

    const response = await fetch(`${standIn.endpoint}/model/m/converse`, { method: 'POST', body: '{}', headers: { authorization, 'x-amz-date': '20260101T000000Z' } });

    expect(response.status).toBe(403);
    expect(((await response.json()) as { message: string }).message).toContain("scoped to correct service: 'bedrock'");
  });
});
