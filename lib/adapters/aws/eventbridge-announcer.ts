import { PutEventsCommand, type EventBridgeClient, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { errorMessage } from '../../core/errors.ts';
import type { TurnResult } from '../../core/turn.ts';
import { AnnouncementError, type TurnAnnouncer } from '../../core/ports/turn-announcer.ts';
import { AGENT_EVENT_SOURCE, APPROVAL_REQUIRED, TURN_COMPLETED } from '../../core/event-names.ts';

interface EventBridgeAnnouncerOptions {
  client: EventBridgeClient;
  eventBusName: string;
}

/**
 * EventBridge takes entries up to 256 KB (Source, DetailType and Detail counted). A turn whose
 * announcement could never fit would fail its record on every receive, although the turn is
 * stored; such a turn is announced without its reply and tool arguments, marked `truncated`, and
 * consumers read it whole through GET /conversations/{conversationId}.
 */
const MAX_ENTRY_BYTES = 256 * 1024;

/**
 * Announces each finished turn as an `AgentTurnCompleted` event, and each paused one as
 * `AgentApprovalRequired`; throws when it was not accepted.
 */
export function createEventBridgeTurnAnnouncer(options: EventBridgeAnnouncerOptions): TurnAnnouncer {
  const { client, eventBusName } = options;
  return {
    async announce(result, requestId, owner) {
      const entry = turnEntry(eventBusName, result, requestId, owner);
      let output;
      try {
        output = await client.send(new PutEventsCommand({ Entries: [entry] }));
      } catch (error) {
        throw new AnnouncementError(`Announcing turn ${result.turn} of conversation ${result.conversationId} on event bus ${eventBusName} failed: ${errorMessage(error)}`, { cause: error });
      }
      if ((output.FailedEntryCount ?? 0) > 0) {
        const rejected = output.Entries?.[0];
        throw new AnnouncementError(`Event bus ${eventBusName} rejected the ${entry.DetailType} event of turn ${result.turn} of conversation ${result.conversationId}: ${rejected?.ErrorCode ?? 'unknown error'}${rejected?.ErrorMessage ? ` (${rejected.ErrorMessage})` : ''}`);
      }
    },
  };
}

/**
 * The event: detail = the turn result (with its pendingApprovals when paused) plus the requestId
 * consumers dedupe on, and the owner the turn acted for (when it had one) to route it by. Only the
 * worker may put events with this source on the bus (its resource policy), so consumers can trust it.
 */
function turnEntry(eventBusName: string, result: TurnResult, requestId: string, owner?: string): PutEventsRequestEntry {
  // A turn waiting for a person's answer to a server's question waits like one waiting for approvals.
  const waiting = (result.stopReason === 'approval_required' || result.stopReason === 'input_required') && ((result.pendingApprovals?.length ?? 0) > 0 || (result.pendingElicitations?.length ?? 0) > 0);
  const detailType = waiting ? APPROVAL_REQUIRED : TURN_COMPLETED;
  const entry = (detail: object): PutEventsRequestEntry => ({ EventBusName: eventBusName, Source: AGENT_EVENT_SOURCE, DetailType: detailType, Detail: JSON.stringify(detail) });
  const routing = { requestId, ...(owner === undefined ? {} : { owner }) };
  const whole = entry({ ...result, ...routing });
  if (entrySize(whole) <= MAX_ENTRY_BYTES) return whole;
  const { reply: _reply, toolCalls, ...summary } = result;
  return entry({ ...summary, toolCalls: toolCalls.map(({ arguments: _arguments, ...call }) => call), ...routing, truncated: true });
}

const entrySize = (entry: PutEventsRequestEntry): number =>
  Buffer.byteLength(entry.Source ?? '') + Buffer.byteLength(entry.DetailType ?? '') + Buffer.byteLength(entry.Detail ?? '');
