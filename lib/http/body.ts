import { InputError } from '../core/errors.ts';
import type { HttpRequest } from './types.ts';

/** Reads a JSON object body, with a 4xx that says what to fix for each way it can be wrong. */
export function readJsonObject(request: HttpRequest, maxBytes: number): Record<string, unknown> {
  const body = request.body ?? '';
  const size = Buffer.byteLength(body, 'utf8');
  if (size > maxBytes) {
    throw new InputError('body_too_large', `The request body has ${size} bytes; the limit is ${maxBytes}. Send a shorter message.`);
  }
  const contentType = request.headers['content-type'] ?? '';
  if (!/^application\/([a-z.+-]*\+)?json\s*(;|$)/i.test(contentType)) {
    throw new InputError('unsupported_media_type', `Send the body as JSON with the header "Content-Type: application/json"${contentType ? ` (got "${contentType}")` : ''}.`);
  }
  if (body.trim() === '') {
    throw new InputError('missing_body', 'The request body is empty: send a JSON object such as {"message": "your question"}.');
  }
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    throw new InputError('malformed_json', `The request body is not valid JSON (${(error as Error).message}). Send a JSON object such as {"message": "your question"}.`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new InputError('invalid_body', 'The request body must be a JSON object such as {"message": "your question"}.');
  }
  return value as Record<string, unknown>;
}
