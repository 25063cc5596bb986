import type { Logger } from '../../core/logger.ts';
import type { Agent } from '../../agent/agent-api.ts';
import type { LoopEvent } from '../../agent/loop/loop-events.ts';
import { EVENT_STREAM_HEADERS, encodeComment } from '../../http/sse.ts';
import { EventStreamBody, type EventStreamResponse } from '../../http/event-stream.ts';
import { loopEventData } from '../../http/sse-events.ts';
import type { HttpResponse } from '../../http/types.ts';
import type { ChatCompletionCall } from './chat-request.ts';
import { CONVERSATION_HEADER } from './headers.ts';
import { chunk, finishReason, usageChunk, type ChunkParts, type CompletionIdentity } from './completion.ts';
import { openAIErrorResponse } from './errors.ts';
import { TurnText } from './turn-text.ts';

interface StreamCompletionOptions {
  agent: Pick<Agent, 'ask'>;
  logger: Logger;
  identity: CompletionIdentity;
  /** A `: keep-alive` comment this often while the turn runs (none when absent). */
  heartbeatMs?: number;
}

/**
 * A chat completion with `stream: true`, as OpenAI streams one: `data: <chunk>` lines, then
 * `data: [DONE]`. As with the native stream, nothing is promised before the turn starts, so bad
 * input, a busy conversation or a missing model keep their status and error body:
 *
 *   turn fails before it starts  -> the JSON error, OpenAI-shaped, with its status
 *   turn-start (or the result of
 *   a replayed turn)             -> 200, X-Conversation-Id; a first chunk with the role; a chunk
 *                                   per piece of text (delta.content) and per tool event (an empty
 *                                   delta and `mcp_agent`); the rest of the reply; a last chunk with
 *                                   the finish_reason and `mcp_agent` = the turn result; the usage
 *                                   chunk when asked; [DONE]
 *   a stored turn that ended with
 *   `error` (tools ran first)    -> ends as any turn does: its reply says what failed, and
 *                                   `mcp_agent.error` names it
 *   failure after that, the turn
 *   not stored                   -> `data: {"error": {...}}` (what the OpenAI SDKs raise), no [DONE]
 */
export function streamCompletion(call: ChatCompletionCall, options: StreamCompletionOptions): Promise<HttpResponse | EventStreamResponse> {
  const { agent, logger, identity } = options;
  const body = new EventStreamBody();
  const text = new TurnText();
  const usage: Pick<ChunkParts, 'usage'> = call.includeUsage ? { usage: null } : {};
  let heartbeat: NodeJS.Timeout | undefined;
  let ended = false;

  body.on('close', () => {
    if (!ended) logger.warn('chat completion stream closed by the client before the turn ended; the turn continues', { conversationId: call.conversationId });
  });
  const write = (frame: string) => {
    if (!ended && !body.destroyed) body.write(frame);
  };
  const send = (value: unknown) => write(`data: ${JSON.stringify(value)}\n\n`);
  const sendChunk = (parts: ChunkParts) => send(chunk(identity, { ...parts, ...usage }));

  return new Promise((respond) => {
    let committed = false;
    const commit = (conversationId: string | undefined, first: Pick<ChunkParts, 'mcpAgent'> = {}) => {
      if (committed) return;
      committed = true;
      if (options.heartbeatMs !== undefined) heartbeat = setInterval(() => write(encodeComment('keep-alive')), options.heartbeatMs);
      respond({ statusCode: 200, headers: { ...EVENT_STREAM_HEADERS, ...(conversationId ? { [CONVERSATION_HEADER]: conversationId } : {}) }, body });
      sendChunk({ delta: { role: 'assistant', content: '' }, ...first });
    };
    // Called inside the loop: whatever goes wrong with the stream must not break the turn.
    const onEvent = (event: LoopEvent) => {
      try {
        if (event.type === 'turn-start') {
          commit(event.conversationId, { mcpAgent: { event: 'turn-start', data: { conversationId: event.conversationId, turn: event.turn } } });
          return;
        }
        // The model's reasoning is not part of the answer, and Chat Completions has no field for it.
        if (event.type === 'reasoning-delta') return;
        commit(call.conversationId);
        if (event.type === 'text-delta') {
          // A structured answer is sent whole at the end: a rejected one, or a tool round's words, must not come before it.
          if (call.structured) return;
          const piece = text.add(event.round, event.text);
          if (piece !== '') sendChunk({ delta: { content: piece } });
          return;
        }
        const activity = loopEventData(event);
        if (activity) sendChunk({ mcpAgent: { event: activity.name, data: activity.data } });
      } catch (error) {
        logger.error('could not stream a loop event', { event: event.type, error: String(error) });
      }
    };

    const fail = (failure: HttpResponse) => {
      if (!committed) {
        committed = true;
        respond(failure);
        return;
      }
      write(`data: ${failure.body}\n\n`);
    };

    body.settled = call
      .run(agent, onEvent)
      .then(
        (result) => {
          commit(result.conversationId);
          const rest = call.structured ? result.reply : text.finish(result.reply);
          if (rest !== '') sendChunk({ delta: { content: rest } });
          sendChunk({ finishReason: finishReason(result.stopReason), mcpAgent: { event: 'turn-end', data: result } });
          if (call.includeUsage) send(usageChunk(identity, result));
          write('data: [DONE]\n\n');
        },
        (error: unknown) => fail(openAIErrorResponse(error, logger)),
      )
      .catch((error: unknown) => logger.error('could not write the end of a chat completion stream', { error: String(error) }))
      .finally(() => {
        clearInterval(heartbeat);
        ended = true;
        if (!body.destroyed) body.end();
      });
  });
}
