/**
 * Which schemas the interpreter (interpret.ts) validates: those whose every subschema uses only the
 * keywords below, with values it handles, and keywords Ajv does not know either (`x-mcp-header`,
 * `propertyOrder`), which Ajv ignores with strict: false as the interpreter does. Any other of
 * Ajv's keywords (anyOf, $ref, pattern...), an object in an `enum` and a nested `$id` or `$schema`
 * are Ajv's, so the interpreter never has to guess. test/unit/json-schema-interpreter.test.ts
 * proves the interpreter answers as Ajv does.
 */
import type { JsonObject } from '../core/json.ts';

const ANNOTATIONS = ['title', 'description', 'default', 'examples', '$comment', 'readOnly', 'writeOnly', 'deprecated', 'format'];
const VALIDATIONS = [
  'type', 'properties', 'required', 'additionalProperties', 'items', 'enum', 'const',
  'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minLength', 'maxLength', 'minItems', 'maxItems',
];
const KNOWN = new Set([...ANNOTATIONS, ...VALIDATIONS]);
/** Every keyword Ajv and Ajv2020 know (their RULES), and discriminator (an option away): any of them not KNOWN is left to Ajv. */
const AJV_KEYWORDS = new Set([
  '$async', '$comment', '$defs', '$dynamicAnchor', '$dynamicRef', '$id', '$recursiveAnchor', '$recursiveRef', '$ref', '$schema', '$vocabulary',
  'additionalItems', 'additionalProperties', 'allOf', 'anyOf', 'const', 'contains', 'contentEncoding', 'contentMediaType', 'contentSchema',
  'default', 'definitions', 'dependencies', 'dependentRequired', 'dependentSchemas', 'deprecated', 'description', 'discriminator', 'else', 'enum',
  'examples', 'exclusiveMaximum', 'exclusiveMinimum', 'format', 'id', 'if', 'items', 'maxContains', 'maxItems', 'maxLength', 'maxProperties',
  'maximum', 'minContains', 'minItems', 'minLength', 'minProperties', 'minimum', 'multipleOf', 'not', 'nullable', 'oneOf', 'pattern',
  'patternProperties', 'prefixItems', 'properties', 'propertyNames', 'readOnly', 'required', 'then', 'title', 'type', 'unevaluatedItems',
  'unevaluatedProperties', 'uniqueItems', 'writeOnly',
]);

/** Whether the interpreter validates this (root) schema exactly as Ajv would; `$schema` only at the root. */
export function inSubset(schema: JsonObject): boolean {
  const { $schema: _dialect, ...rest } = schema;
  return subschemaInSubset(rest);
}

function subschemaInSubset(schema: unknown): boolean {
  if (typeof schema === 'boolean') return true;
  if (!isObject(schema)) return false;
  for (const [keyword, value] of Object.entries(schema)) {
    if (KNOWN.has(keyword) ? !valueInSubset(keyword, value) : AJV_KEYWORDS.has(keyword) || !inert(value)) return false;
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

/**
 * Ajv does not validate with a keyword it does not know, but it still collects the `$id`s and
 * anchors inside its value (json-schema-traverse, allKeys), and two tools with the same one fail to
 * compile: such a value is Ajv's, so the verdict on the tool is the same.
 */
function inert(value: unknown): boolean {
  if (Array.isArray(value)) return value.every(inert);
  if (!isObject(value)) return true;
  return Object.entries(value).every(([key, item]) => !key.startsWith('$') && inert(item));
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isPrimitive = (value: unknown) => value === null || typeof value !== 'object';
