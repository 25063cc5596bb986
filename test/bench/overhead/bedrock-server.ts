/**
 * The benchmark's Bedrock: the local Bedrock stand-in (test/support/bedrock-stand-in.ts, real HTTP/2
 * with SigV4 checked, ConverseStream as AWS event-stream frames) answering the same scripted
 * conversation as the OpenAI-compatible model server (model-server.ts): the model id carries the
 * turn's shape (`bench-5x2`), and the request's messages say which round it is (the assistant
 * messages since the user's question; tool results travel in user messages of their own).
 */
import { usage } from '../../support/bedrock-stand-in-events.ts';
import { STAND_IN_CREDENTIALS, STAND_IN_REGION, startBedrockStandIn } from '../../support/bedrock-stand-in.ts';
import { shapeOf } from './model-server.ts';

export interface BedrockServer {
  endpoint: string;
  /** What a process needs to reach it: the endpoint, the region and the keys it checks signatures with. */
  environment: Record<string, string>;
  /** Requests answered so far. */
  requests(): number;
  close(): Promise<void>;
}

interface ConverseMessage {
  role: string;
  content: Record<string, unknown>[];
}

export async function startBedrockServer(): Promise<BedrockServer> {
  const standIn = await startBedrockStandIn((body, _index, request) => {
    const shape = shapeOf(request.modelId);
    const messages = (body['messages'] ?? []) as ConverseMessage[];
    const question = messages.findLastIndex((message) => message.role === 'user' && message.content.every((block) => !('toolResult' in block)));
    const round = messages.slice(question + 1).filter((message) => message.role === 'assistant').length;
    const tokens = usage(20 * messages.length, 10);
    if (round >= shape.toolRounds) return { output: { message: { role: 'assistant', content: [{ text: `Done after ${round} rounds.` }] } }, stopReason: 'end_turn', usage: tokens };
    const calls = Array.from({ length: shape.callsPerRound }, (_, call) => ({ toolUse: { toolUseId: `call_${round}_${call}`, name: 'add', input: { a: round, b: call } } }));
    return { output: { message: { role: 'assistant', content: calls } }, stopReason: 'tool_use', usage: tokens };
  });
  return {
    endpoint: standIn.endpoint,
    environment: {
      BEDROCK_ENDPOINT: standIn.endpoint,
      AWS_REGION: STAND_IN_REGION,
      AWS_ACCESS_KEY_ID: STAND_IN_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: STAND_IN_CREDENTIALS.secretAccessKey,
    },
    requests: () => standIn.requests.length,
    close: () => standIn.close(),
  };
}
