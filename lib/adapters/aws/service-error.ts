/**
 * An AWS JSON-protocol error answer as the SDK's errors look: `name` the error type (the part of
 * `__type` after `#`), `message`, `$fault`, `$metadata`, and the answer's other fields. Code that
 * reads SDK errors (by `name`, `$metadata.httpStatusCode`) reads these the same way.
 */

/** What is read of an answer's headers (fetch's Headers, or node's wrapped). */
export interface HeaderReader {
  get(name: string): string | null;
}

export interface ResponseMetadata {
  httpStatusCode?: number;
  requestId?: string;
  attempts?: number;
  totalRetryDelay?: number;
  /** The answer's Date corrected the client's clock by minutes (as the SDK marks it). */
  clockSkewCorrected?: boolean;
}

export interface AwsServiceError extends Error {
  $fault: 'client' | 'server';
  $metadata: ResponseMetadata;
  [field: string]: unknown;
}

/**
 * `com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException`, `Name:http://…` or a list
 * (`Name, Name`: a repeated header) → the name; in the SDK's order (its sanitizeErrorCode): the
 * first of a list, the part before `:` (which may hold a `#` of its own), then the part after `#`.
 */
export function errorTypeName(type: string): string {
  const beforeColon = type.split(',')[0]!.split(':')[0]!;
  return beforeColon.slice(beforeColon.indexOf('#') + 1).trim();
}

/** Where the SDK's JSON protocol finds an error's type, in its order: `__type`, a `code` field (any case), x-amzn-errortype. */
function errorTypeText(headers: HeaderReader, body: Record<string, unknown>): string {
  if (typeof body.__type === 'string') return body.__type;
  const codeKey = Object.keys(body).find((key) => key.toLowerCase() === 'code');
  if (codeKey !== undefined && (typeof body[codeKey] === 'string' || typeof body[codeKey] === 'number')) return String(body[codeKey]);
  return headers.get('x-amzn-errortype') ?? '';
}

export function serviceError(status: number, headers: HeaderReader, body: Record<string, unknown>, requestId: string | undefined): AwsServiceError {
  const typeText = errorTypeText(headers, body);
  const name = errorTypeName(typeText) || (status >= 500 ? 'InternalServerError' : `HTTP${status}`);
  const { __type: _type, message, Message, ...fields } = body;
  const text = typeof message === 'string' ? message : typeof Message === 'string' ? Message : `${name} (HTTP ${status})`;
  const error = new Error(text) as AwsServiceError;
  error.name = name;
  Object.assign(error, fields);
  error.$fault = status >= 500 ? 'server' : 'client';
  error.$metadata = { httpStatusCode: status, ...(requestId ? { requestId } : {}) };
  return error;
}

/** Retry-After (seconds or a date) or x-amz-retry-after (milliseconds), as the SDK reads them. */
export function retryAfterHint(headers: HeaderReader): Date | undefined {
  const milliseconds = headers.get('x-amz-retry-after');
  if (milliseconds !== null && !Number.isNaN(Number(milliseconds))) return new Date(Date.now() + Number(milliseconds));
  const value = headers.get('retry-after');
  if (value === null) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return new Date(Date.now() + Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : new Date(date);
}
