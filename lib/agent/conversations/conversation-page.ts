import { InputError, NotFoundError } from '../../core/errors.ts';
import type { ConversationKey, ConversationState, ConversationStore } from '../../core/ports/conversation-store.ts';
import { conversationView, type ConversationView } from './conversation-view.ts';
import type { TurnRules } from '../turn/open-turn.ts';
import { pageToken, readPageToken } from './page-token.ts';

/** Turns per page when the caller names no limit, and the most one page may hold. */
const DEFAULT_PAGE_TURNS = 20;
export const MAX_PAGE_TURNS = 100;

export interface ConversationPageRequest {
  /** Turns on the page, 1 to 100; default 20. */
  limit?: number;
  /** The previous page's nextToken; absent for the first page. */
  nextToken?: string;
}

interface ConversationPageContext {
  store: ConversationStore;
  rules: TurnRules;
  hmacKey: Uint8Array;
  now: number;
  /** Fields of the conversation's state as its newest turn left it, shown on the last page. */
  viewFields?: (state: ConversationState) => Record<string, unknown>;
}

/**
 * One page of a conversation as its caller reads it (conversationView's rules for running, paused
 * and interrupted turns), oldest turn first, with a nextToken while turns remain. Reading a long
 * conversation costs a page's turns per request, never the whole conversation.
 */
export async function readConversationPage(key: ConversationKey, page: ConversationPageRequest, context: ConversationPageContext): Promise<ConversationView> {
  const limit = checkPageLimit(page.limit);
  const after = page.nextToken === undefined ? undefined : readPageToken(page.nextToken, key, context.hmacKey);
  const { records, more } = await context.store.readPage(key, { limit, ...(after === undefined ? {} : { after }) });
  const view = conversationView(key.conversationId, records, context.now, context.rules);
  if (after === undefined && view.turns.length === 0) {
    throw new NotFoundError('conversation_not_found', `There is no conversation "${key.conversationId}". Start one with POST /conversations.`);
  }
  const last = records.at(-1);
  if (more && last) return { ...view, nextToken: pageToken(key, last.turn, context.hmacKey) };
  return last && context.viewFields ? { ...context.viewFields(last.state()), ...view } : view;
}

export function checkPageLimit(limit: number | undefined, items = 'turns'): number {
  if (limit === undefined) return DEFAULT_PAGE_TURNS;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_TURNS) {
    throw new InputError('invalid_limit', `"limit" must be a whole number of ${items} from 1 to ${MAX_PAGE_TURNS}, not ${JSON.stringify(limit)}.`);
  }
  return limit;
}
