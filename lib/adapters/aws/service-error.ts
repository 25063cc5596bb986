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
}

export interface AwsServiceError extends Error {
  $fault: 'client' | 'server';
  $metadata: ResponseMetadata;
  [field: string]: unknown;
}

/** `com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException` or `Name:http://…` → the name. */
export function errorTypeName(type: string): string {
  const afterHash = type.slice(type.lastIndexOf('#') + 1);
  return afterHash.split(':')[0]!.trim();
}

export function serviceError(status: number, headers: HeaderReader, body: Record<string, unknown>, requestId: string | undefined): AwsServiceError {
  const typeText = typeof body.__type === 'string' ? body.__type : headers.get('x-amzn-errortype') ?? '';
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
