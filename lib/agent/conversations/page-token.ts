import { createHmac, timingSafeEqual } from 'node:crypto';
import { InputError } from '../../core/errors.ts';
import type { ConversationKey } from '../../core/ports/conversation-store.ts';

/** 128 bits of MAC: forging one is out of reach, and the token stays short. */
const MAC_BYTES = 16;
const TURN_BYTES = 4;
const TOKEN = /^[A-Za-z0-9_-]{27}$/;

/**
 * The token that reads the page after `afterTurn`: the turn number and an HMAC over it, the
 * conversation and its owner, keyed by the deployment's secret, in base64url. Opaque to callers;
 * it reads only the conversation (and owner) it was handed out for, so it can never become a
 * way into another one, and a token changed by hand is refused.
 */
export function pageToken(key: ConversationKey, afterTurn: number, hmacKey: Uint8Array): string {
  const turn = Buffer.alloc(TURN_BYTES);
  turn.writeUInt32BE(afterTurn);
  return Buffer.concat([turn, mac(key, afterTurn, hmacKey)]).toString('base64url');
}

/** The turn after which the page starts; InputError `invalid_page_token` for any other token. */
export function readPageToken(token: string, key: ConversationKey, hmacKey: Uint8Array): number {
  const refused = () => new InputError('invalid_page_token', '"nextToken" is not a token this conversation handed out: pass the nextToken of the previous page as it is, or leave it out to read from the first turn.');
  if (!TOKEN.test(token)) throw refused();
  const bytes = Buffer.from(token, 'base64url');
  const afterTurn = bytes.readUInt32BE(0);
  if (!timingSafeEqual(bytes.subarray(TURN_BYTES), mac(key, afterTurn, hmacKey))) throw refused();
  return afterTurn;
}

const mac = (key: ConversationKey, afterTurn: number, hmacKey: Uint8Array): Buffer =>
  createHmac('sha256', hmacKey).update(`page-token\n${JSON.stringify([key.owner ?? null, key.conversationId, afterTurn])}`).digest().subarray(0, MAC_BYTES);
