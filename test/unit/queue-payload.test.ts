import { describe, expect, it } from 'vitest';
import { InputError } from '../../lib/core/errors.ts';
import { parseMessageBody, readTurnRequest } from '../../lib/queue/payload.ts';
import directInvoke from '../fixtures/events/direct-invoke.json' with { type: 'json' };
import eventBridgeEvent from '../fixtures/events/eventbridge-turn-requested.json' with { type: 'json' };
import sqsBatch from '../fixtures/events/sqs-batch.json' with { type: 'json' };
import sqsEventBridgeRecord from '../fixtures/events/sqs-eventbridge-record.json' with { type: 'json' };

const MAX_MESSAGE_CHARS = 100;
const read = (value: unknown) => readTurnRequest(value, MAX_MESSAGE_CHARS);
const valid = { conversationId: 'conv-1', message: 'hello', requestId: 'req-1' };

describe('readTurnRequest', () => {
  it('reads a direct invoke payload as it is', () => {
    expect(read(directInvoke)).toEqual({ conversationId: 'direct-invoke', message: '你有哪些function可以调用', requestId: 'invoke-7d0f5a3e' });
  });

  it('reads a plain payload from an SQS message body', () => {
    expect(read(parseMessageBody(sqsBatch.Records[0]!.body))).toEqual({ conversationId: 'weather-sqs', message: '上海今天天气怎么样?', requestId: 'req-sqs-1' });
  });

  it('unwraps an EventBridge event invoked directly to its detail', () => {
    expect(read(eventBridgeEvent)).toEqual({ conversationId: 'orders-events', message: '取消订单 ORD20250514118567', requestId: 'evt-6a7e8feb-b491-4cf7' });
  });

  it('unwraps an EventBridge event that a rule delivered to SQS as the message body', () => {
    expect(read(parseMessageBody(sqsEventBridgeRecord.Records[0]!.body))).toEqual({ conversationId: 'orders-queued', message: '获取新闻', requestId: 'evt-c1b3f1d2-3a8e-4f0b' });
  });

  it('takes the sender\'s W3C trace context, and ignores a malformed one rather than refusing the turn', () => {
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    expect(read({ ...valid, traceparent, tracestate: 'vendor=opaque' })).toEqual({ ...valid, trace: { traceparent, tracestate: 'vendor=opaque' } });
    expect(read({ ...valid, traceparent: 'Root=1-5759e988-bd862e3fe1be46a994272793' })).toEqual(valid);
  });

  it('takes a structured answer\'s responseFormat with a question, and refuses a bad one or one beside decisions, naming the fix', () => {
    const responseFormat = { type: 'json_schema', name: 'order', schema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } };
    expect(read({ ...valid, responseFormat })).toEqual({ ...valid, responseFormat });
    expect(() => read({ ...valid, responseFormat: { type: 'text' } })).toThrow(expect.objectContaining({ code: 'invalid_response_format' }));
    const decided = { conversationId: 'conv-1', requestId: 'req-2', decisions: [{ toolCallId: 'call_1', approved: true }] };
    expect(() => read({ ...decided, responseFormat })).toThrow(/"responseFormat" goes with a "message"/);
  });

  it('keeps the owner that scopes the conversation', () => {
    expect(read({ ...valid, owner: 'arn:aws:iam::123456789012:user/alice' })).toEqual({ ...valid, owner: 'arn:aws:iam::123456789012:user/alice' });
  });

  const { requestId: _requestId, ...withoutRequestId } = valid;
  const { conversationId: _conversationId, ...withoutConversationId } = valid;
  const { message: _message, ...withoutMessage } = valid;

  it.each([
    ['a string', 'hello', 'invalid_payload', /must be a JSON object/],
    ['an array', [valid], 'invalid_payload', /not an array/],
    ['null', null, 'invalid_payload', /not null/],
    ['no conversationId', withoutConversationId, 'missing_conversation_id', /"conversationId"/],
    ['a numeric conversationId', { ...valid, conversationId: 42 }, 'invalid_conversation_id', /"conversationId" must be a string/],
    ['a conversationId with a slash', { ...valid, conversationId: 'a/b' }, 'invalid_conversation_id', /conversationId must be 1 to 128/],
    ['no requestId', withoutRequestId, 'missing_request_id', /"requestId".*redelivered/],
    ['a requestId with spaces', { ...valid, requestId: 'req 1' }, 'invalid_request_id', /requestId must be/],
    ['no message', withoutMessage, 'missing_message', /"message"/],
    ['an empty message', { ...valid, message: '  ' }, 'empty_message', /"message" is empty/],
    ['a message over the limit', { ...valid, message: 'x'.repeat(MAX_MESSAGE_CHARS + 1) }, 'message_too_long', /limit is 100/],
    ['a misspelt field', { ...valid, ownr: 'alice' }, 'unknown_field', /"ownr"/],
    ['an empty owner', { ...valid, owner: '' }, 'invalid_owner', /"owner"/],
    ['a numeric owner', { ...valid, owner: 7 }, 'invalid_owner', /"owner"/],
    ['an event of another detail-type', { ...eventBridgeEvent, 'detail-type': 'OrderPlaced' }, 'unsupported_event', /"OrderPlaced".*AgentTurnRequested/],
    ['an event whose detail lacks requestId', { ...eventBridgeEvent, detail: withoutRequestId }, 'missing_request_id', /The detail must have a "requestId"/],
  ])('refuses %s with an error naming what to fix', (_case, value, code, message) => {
    expect(() => read(value)).toThrow(expect.objectContaining({ name: InputError.name, code, message: expect.stringMatching(message) }));
  });
});

describe('parseMessageBody', () => {
  it('refuses a body that is not JSON', () => {
    expect(() => parseMessageBody('cancel order 42')).toThrow(expect.objectContaining({ code: 'malformed_json', message: expect.stringMatching(/not JSON/) }));
  });
});
