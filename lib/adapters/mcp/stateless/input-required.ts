/**
 * tools/call in the stateless era (2026-07-28). A server that needs something from the client
 * (an elicitation, a sampling, the roots) does not send a request of its own: it answers the call
 * with `resultType: "input_required"` and its `inputRequests`, and the client calls again with
 * `inputResponses` (and the opaque `requestState` echoed). The answers are the same ones the
 * stateful era gives to the server's requests (server-requests.ts).
 */
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { CallToolResultSchema, ErrorCode, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import type { JsonObject } from '../../../core/json.ts';
import type { ServerConnection } from '../connect.ts';
import type { ServerRequestAnswers } from '../server-requests.ts';

/** A server that keeps asking is stopped here rather than looping for the whole timeout. */
const MAXIMUM_ROUNDS = 8;

const AnyResultSchema = z.looseObject({ resultType: z.string().optional() });
const InputRequestsSchema = z.record(z.string(), z.looseObject({ method: z.string(), params: z.looseObject({}).optional() }));

export async function callStatelessTool(
  connection: ServerConnection,
  params: { name: string; arguments: JsonObject },
  options: RequestOptions & { signal: AbortSignal; timeout: number },
): Promise<CallToolResult> {
  let request: Record<string, unknown> = params;
  for (let round = 0; round < MAXIMUM_ROUNDS; round++) {
    const result = await connection.client.request({ method: 'tools/call', params: request }, AnyResultSchema, options);
    if (result.resultType !== 'input_required') return checkedResult(connection, params.name, result);
    const inputRequests = InputRequestsSchema.parse(result['inputRequests'] ?? {});
    const inputResponses: Record<string, unknown> = {};
    for (const [key, input] of Object.entries(inputRequests)) {
      inputResponses[key] = await answer(connection.answers, input.method, input.params ?? {}, options.signal);
    }
    const requestState = result['requestState'];
    request = { ...params, inputResponses, ...(typeof requestState === 'string' ? { requestState } : {}) };
  }
  throw new McpError(ErrorCode.InternalError, `the server still asked for input after ${MAXIMUM_ROUNDS} rounds`);
}

async function answer(answers: ServerRequestAnswers, method: string, params: Record<string, unknown>, signal: AbortSignal): Promise<unknown> {
  if (method === 'elicitation/create' && answers.elicit) return answers.elicit(params as never, signal);
  if (method === 'sampling/createMessage' && answers.sample) return answers.sample(params as never, signal);
  if (method === 'roots/list' && answers.listRoots) return answers.listRoots();
  throw new McpError(ErrorCode.InvalidRequest, `the tool asked the client for ${method}, which this client does not offer to this server`);
}

/** What callTool() checks in the stateful era: the result's shape, and structuredContent against the outputSchema. */
function checkedResult(connection: ServerConnection, tool: string, raw: unknown): CallToolResult {
  const result = CallToolResultSchema.parse(raw);
  const validatorOf: unknown = Reflect.get(connection.client, 'getToolOutputValidator');
  const validate = typeof validatorOf === 'function' ? (validatorOf.call(connection.client, tool) as ((value: unknown) => { valid: boolean; errorMessage?: string }) | undefined) : undefined;
  if (!validate || result.isError) return result;
  if (result.structuredContent === undefined) {
    throw new McpError(ErrorCode.InvalidRequest, `Tool ${tool} has an output schema but did not return structured content`);
  }
  const verdict = validate(result.structuredContent);
  if (!verdict.valid) throw new McpError(ErrorCode.InvalidParams, `Structured content does not match the tool's output schema: ${verdict.errorMessage}`);
  return result;
}
