import type { InputErrorCode, LimitCode, ModelErrorCode, StoreErrorCode } from '../core/errors.ts';

/**
 * The one table from error codes to HTTP statuses. Typed by the error classes' code unions, so a
 * new code that is not given a status here fails the type check.
 */
export const INPUT_STATUS: Record<InputErrorCode, 400 | 401 | 403 | 404 | 405 | 409 | 413 | 415 | 421 | 422> = {
  missing_body: 400,
  malformed_json: 400,
  invalid_body: 400,
  unknown_field: 400,
  missing_message: 400,
  invalid_message: 400,
  empty_message: 400,
  message_too_long: 400,
  missing_conversation_id: 400,
  invalid_conversation_id: 400,
  missing_request_id: 400,
  invalid_request_id: 400,
  request_id_reused: 422,
  invalid_owner: 400,
  invalid_messages: 400,
  invalid_response_format: 400,
  model_not_found: 404,
  unsupported_parameter: 400,
  unsupported_content: 400,
  invalid_payload: 400,
  unsupported_event: 400,
  owner_not_allowed: 403,
  invalid_decisions: 400,
  invalid_answer: 400,
  undecided_calls: 400,
  invalid_limit: 400,
  invalid_page_token: 400,
  unknown_query_parameter: 400,
  invalid_note_id: 400,
  note_not_found: 404,
  memory_not_enabled: 404,
  invalid_file_name: 400,
  file_not_found: 404,
  files_not_enabled: 404,
  invalid_last_event_id: 400,
  invalid_turn: 400,
  connection_server_unknown: 404,
  connection_state_invalid: 400,
  connection_refused: 400,
  unauthenticated: 401,
  conversation_not_found: 404,
  route_not_found: 404,
  turn_not_found: 404,
  trace_not_found: 404,
  method_not_allowed: 405,
  // Misdirected Request: this server does not answer for that authority.
  host_not_allowed: 421,
  conversation_busy: 409,
  turn_in_progress: 409,
  approval_not_pending: 409,
  approval_expired: 409,
  body_too_large: 413,
  unsupported_media_type: 415,
};

/** Upstream model failures: 504 when it did not answer in time, 502 otherwise. */
export const MODEL_STATUS: Record<ModelErrorCode, 502 | 504> = {
  model_unavailable: 502,
  model_rate_limited: 502,
  model_quota_exceeded: 502,
  model_auth_failed: 502,
  model_rejected_request: 502,
  model_bad_response: 502,
  model_aborted: 502,
  model_timeout: 504,
};

export const STORE_STATUS: Record<StoreErrorCode, 413 | 500 | 503> = {
  store_unavailable: 503,
  turn_not_stored: 503,
  turn_too_large: 413,
  invalid_stored_item: 500,
  unsupported_item_version: 500,
};

/** A limit of agent.yml's `limits`: a spent token budget, too many turns of one owner at once. */
export const LIMIT_STATUS: Record<LimitCode, 429> = {
  budget_exhausted: 429,
  too_many_turns: 429,
};
