import { InputError } from '../../core/errors.ts';
import { isJsonObject, unknownFieldsText } from '../../core/json.ts';
import type { ResponseFormat } from '../../core/response-format.ts';
import { answerCheck } from '../loop/answer-check.ts';

/** OpenAI's rule for a format's name, which providers check: kept so the name reaches them as it is. */
const NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
const FIELDS = ['type', 'schema', 'name', 'strict'];

/**
 * A caller's responseFormat, checked before any turn starts: its shape, and its schema compiled
 * (a schema that is not valid JSON Schema is a 400 that names the problem).
 */
export function readResponseFormat(value: unknown, field = 'responseFormat'): ResponseFormat {
  const refuse = (why: string) => new InputError('invalid_response_format', `"${field}" ${why}: send {"type": "json_schema", "name": "answer", "schema": {...}}.`);
  if (!isJsonObject(value)) throw refuse('must be an object');
  const unknown = Object.keys(value).filter((key) => !FIELDS.includes(key));
  if (unknown.length > 0) throw refuse(`has an unknown field (${unknownFieldsText(unknown)})`);
  if (value.type !== 'json_schema') throw refuse('takes only "type": "json_schema"');
  if (typeof value.name !== 'string' || !NAME_PATTERN.test(value.name)) throw refuse('needs a "name" of 1 to 64 letters, digits, "_" or "-"');
  if (!isJsonObject(value.schema)) throw refuse('needs a "schema" that is a JSON Schema object');
  if (value.strict !== undefined && typeof value.strict !== 'boolean') throw refuse('takes "strict" only as true or false');
  const format: ResponseFormat = { type: 'json_schema', name: value.name, schema: value.schema, ...(value.strict === undefined ? {} : { strict: value.strict }) };
  answerCheck(format);
  return format;
}
