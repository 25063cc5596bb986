/**
 * Which schemas the interpreter (interpret.ts) validates: those whose every subschema uses only the
 * keywords below, with values it handles. Anything else (anyOf, $ref, pattern, an object in an
 * `enum`, a nested `$id`, a keyword Ajv would ignore...) is Ajv's, so the interpreter never has to
 * guess. test/unit/json-schema-interpreter.test.ts proves the interpreter answers as Ajv does.
 */
import type { JsonObject } from '../core/json.ts';

const ANNOTATIONS = ['title', 'description', 'default', 'examples', '$comment', 'readOnly', 'writeOnly', 'deprecated', 'format'];
const VALIDATIONS = [
  'type', 'properties', 'required', 'additionalProperties', 'items', 'enum', 'const',
  'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minLength', 'maxLength', 'minItems', 'maxItems',
];
const KNOWN = new Set([...ANNOTATIONS, ...VALIDATIONS]);

/** Whether the interpreter validates this (root) schema exactly as Ajv would; `$schema` only at the root. */
export function inSubset(schema: JsonObject): boolean {
  const { $schema: _dialect, ...rest } = schema;
  return subschemaInSubset(rest);
}

function subschemaInSubset(schema: unknown): boolean {
  if (typeof schema === 'boolean') return true;
  if (!isObject(schema)) return false;
  for (const [keyword, value] of Object.entries(schema)) {
    if (!KNOWN.has(keyword)) return false;
    if (!valueInSubset(keyword, value)) return false;
  }
  return true;
}

function valueInSubset(keyword: string, value: unknown): boolean {
  switch (keyword) {
    case 'properties':
      return isObject(value) && Object.values(value).every(subschemaInSubset);
    case 'additionalProperties':
    case 'items':
      // draft-07's array form of items (a tuple) is Ajv's.
      return subschemaInSubset(value);
    case 'enum':
      // Ajv refuses an empty enum when compiling; objects and arrays compare deeply there.
      return Array.isArray(value) && value.length > 0 && value.every(isPrimitive);
    case 'const':
      return isPrimitive(value);
    default:
      // The structure check (core/json-schema-structure.ts) has already checked every other value's kind.
      return true;
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isPrimitive = (value: unknown) => value === null || typeof value !== 'object';
