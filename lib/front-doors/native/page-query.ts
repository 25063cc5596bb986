import { InputError } from '../../core/errors.ts';
import { MAX_PAGE_TURNS, type ConversationPageRequest } from '../../agent/conversations/conversation-page.ts';

const PARAMETERS = ['limit', 'nextToken'];

/**
 * `?limit=N&nextToken=…` of GET /conversations/{id} and GET /memory (`route` names it in messages).
 * Strict, like request bodies: a misspelt `limt` would otherwise silently read the default page.
 */
export function readPageQuery(query: Readonly<Record<string, string | undefined>> = {}, route: string): ConversationPageRequest {
  const unknown = Object.keys(query).filter((name) => !PARAMETERS.includes(name));
  if (unknown.length > 0) {
    const names = unknown.map((name) => JSON.stringify(name)).join(', ');
    throw new InputError('unknown_query_parameter', `Unknown query parameter${unknown.length > 1 ? 's' : ''} ${names}: ${route} takes limit and nextToken.`);
  }
  const { limit, nextToken } = query;
  if (limit !== undefined && !/^\d{1,9}$/.test(limit)) {
    throw new InputError('invalid_limit', `"limit" must be a whole number from 1 to ${MAX_PAGE_TURNS}, not ${JSON.stringify(limit)}.`);
  }
  return { ...(limit === undefined ? {} : { limit: Number(limit) }), ...(nextToken === undefined ? {} : { nextToken }) };
}

/** A route that takes no query parameters says so, rather than ignoring them. */
export function refuseQuery(query: Readonly<Record<string, string | undefined>> = {}, route: string): void {
  const names = Object.keys(query);
  if (names.length === 0) return;
  throw new InputError('unknown_query_parameter', `Unknown query parameter${names.length > 1 ? 's' : ''} ${names.map((name) => JSON.stringify(name)).join(', ')}: ${route} takes none.`);
}
