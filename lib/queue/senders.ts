import { InputError } from '../core/errors.ts';
import { isEventBridgeEvent } from './aws-event-shapes.ts';
import type { TurnRequest } from './payload.ts';

/**
 * Who sent an asynchronous request, as far as AWS vouches for it. Nothing inside a payload says who
 * sent it: an SQS message or a direct invoke can be shaped as any EventBridge event, with any
 * `source`. So the sender is decided by the channel the request arrived on:
 *
 *   direct invoke (anything, records included) ─► `invoke`
 *   a record of the queue                      ─► `queue` (an event-shaped body is still `queue`)
 *   a record of the event queue                ─► the event's `source`: only the stack's rule may
 *                                                 send there, and it queues only the sources the
 *                                                 operator listed, which the bus accepts from
 *                                                 principals their IAM policies allow
 *
 * Lambda passes no caller identity with a direct invoke, and an invoker can forge SQS records, so
 * `lambda:InvokeFunction` on the worker is full trust (docs/security.md).
 */
type Channel = 'invoke' | 'queue' | 'event-queue';

/** The sender names ownerSources takes besides event sources. */
export const OWNER_SENDER_KEYWORDS = ['queue', 'invoke'] as const;

export function senderOf(channel: Channel, payload: unknown): string {
  if (channel !== 'event-queue') return channel;
  if (!isEventBridgeEvent(payload) || typeof payload.source !== 'string') {
    throw new InputError('invalid_payload', 'A record of the event queue must be an EventBridge event: only the stack\'s rule sends there.');
  }
  return payload.source;
}

/**
 * An `owner` makes the turn act for that user, in that user's conversations: it is taken only from
 * senders the operator trusts to speak for any user (OWNER_SOURCES, CDK context ownerSources).
 * Without one, the request runs in the unscoped space every asynchronous sender shares.
 */
export function checkOwnerAllowed(request: TurnRequest, sender: string, trustedSenders: ReadonlySet<string>): void {
  if (request.owner === undefined || trustedSenders.has(sender)) return;
  throw new InputError(
    'owner_not_allowed',
    `"owner" is accepted only from senders the operator trusts to act for any user, and "${sender}" is not one of them ` +
    `(${trustedSenders.size > 0 ? `trusted: ${[...trustedSenders].join(', ')}` : 'none is trusted'}; CDK context ownerSources). Send the request without "owner", or ask the operator to trust this sender.`,
  );
}
