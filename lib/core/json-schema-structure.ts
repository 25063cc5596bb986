/**
 * Checks that a JSON Schema is shaped as its dialect's meta-schema requires (JSON Schema 2020-12 or
 * draft-07, as Ajv ships them, formats not checked): each keyword's value of the right kind and
 * every subschema an object or a boolean, all the way down. It answers what Ajv's `validateSchema`
 * answers, without compiling the meta-schema: Ajv spends about 60 ms building a validator for the
 * 2020-12 meta-schema, the largest single cost of a cold start (the first tool listing). Ajv then
 * compiles each schema with `validateSchema: false`; what is left to it (`"type": "strin"` is caught
 * here, a `$ref` to nothing when compiling) it still rejects.
 *
 * test/unit/json-schema-structure.test.ts checks the verdicts against Ajv's own meta-schema validation.
 */
export type SchemaDialect = '2020-12' | 'draft-07';

type Rule =
  | 'schema' | 'schemaArray' | 'schemaMap' | 'string' | 'boolean' | 'number' | 'positiveNumber' | 'count'
  | 'stringArray' | 'stringArrayMap' | 'array' | 'enum' | 'type' | 'dependencies' | 'items' | 'anchor' | 'id' | 'booleanMap';

const SHARED: Record<string, Rule> = {
  $schema: 'string', $ref: 'string', $comment: 'string', title: 'string', description: 'string', readOnly: 'boolean', examples: 'array',
  multipleOf: 'positiveNumber', maximum: 'number', exclusiveMaximum: 'number', minimum: 'number', exclusiveMinimum: 'number',
  maxLength: 'count', minLength: 'count', pattern: 'string', maxItems: 'count', minItems: 'count', uniqueItems: 'boolean',
  contains: 'schema', maxProperties: 'count', minProperties: 'count', required: 'stringArray', additionalProperties: 'schema',
  definitions: 'schemaMap', properties: 'schemaMap', patternProperties: 'schemaMap', dependencies: 'dependencies',
  propertyNames: 'schema', type: 'type', format: 'string', contentMediaType: 'string', contentEncoding: 'string',
  if: 'schema', then: 'schema', else: 'schema', allOf: 'schemaArray', anyOf: 'schemaArray', oneOf: 'schemaArray', not: 'schema',
};

const RULES: Record<SchemaDialect, Record<string, Rule>> = {
  'draft-07': { ...SHARED, $id: 'string', additionalItems: 'schema', items: 'items', enum: 'enum' },
  '2020-12': {
    ...SHARED, $id: 'id', $anchor: 'anchor', $dynamicRef: 'string', $dynamicAnchor: 'anchor', $vocabulary: 'booleanMap', $defs: 'schemaMap',
    $recursiveAnchor: 'anchor', $recursiveRef: 'string', prefixItems: 'schemaArray', items: 'schema', dependentSchemas: 'schemaMap',
    unevaluatedItems: 'schema', unevaluatedProperties: 'schema', enum: 'array', maxContains: 'count', minContains: 'count',
    dependentRequired: 'stringArrayMap', deprecated: 'boolean', writeOnly: 'boolean', contentSchema: 'schema',
  },
};

const SIMPLE_TYPES = new Set(['array', 'boolean', 'integer', 'null', 'number', 'object', 'string']);
const ANCHOR = /^[A-Za-z_][-A-Za-z0-9._]*$/;
const ID = /^[^#]*#?$/;

/** The first way the schema breaks its dialect's meta-schema, as `data/path must …`; undefined when it does not. */
export function schemaStructureProblem(schema: unknown, dialect: SchemaDialect): string | undefined {
  return checkSchema(schema, 'data', RULES[dialect]);
}

function checkSchema(schema: unknown, at: string, rules: Record<string, Rule>): string | undefined {
  if (typeof schema === 'boolean') return undefined;
  if (!isObject(schema)) return `${at} must be object,boolean`;
  for (const [keyword, value] of Object.entries(schema)) {
    const rule = rules[keyword];
    if (rule === undefined || value === undefined) continue;
    const problem = checkRule(rule, value, `${at}/${escape(keyword)}`, rules);
    if (problem) return problem;
  }
  return undefined;
}

function checkRule(rule: Rule, value: unknown, at: string, rules: Record<string, Rule>): string | undefined {
  switch (rule) {
    case 'schema':
      return checkSchema(value, at, rules);
    case 'schemaArray':
      if (!Array.isArray(value)) return `${at} must be array`;
      if (value.length < 1) return `${at} must NOT have fewer than 1 items`;
      return firstOf(value, (item, index) => checkSchema(item, `${at}/${index}`, rules));
    case 'schemaMap':
      if (!isObject(value)) return `${at} must be object`;
      return firstOf(Object.entries(value), ([key, item]) => checkSchema(item, `${at}/${escape(key)}`, rules));
    case 'items':
      // draft-07: a schema or a non-empty array of schemas.
      return Array.isArray(value) ? checkRule('schemaArray', value, at, rules) : checkSchema(value, at, rules);
    case 'dependencies':
      if (!isObject(value)) return `${at} must be object`;
      return firstOf(Object.entries(value), ([key, item]) =>
        Array.isArray(item) ? checkRule('stringArray', item, `${at}/${escape(key)}`, rules) : checkSchema(item, `${at}/${escape(key)}`, rules),
      );
    case 'stringArrayMap':
      if (!isObject(value)) return `${at} must be object`;
      return firstOf(Object.entries(value), ([key, item]) => checkRule('stringArray', item, `${at}/${escape(key)}`, rules));
    case 'booleanMap':
      if (!isObject(value)) return `${at} must be object`;
      return firstOf(Object.entries(value), ([key, item]) => (typeof item === 'boolean' ? undefined : `${at}/${escape(key)} must be boolean`));
    case 'stringArray':
      if (!Array.isArray(value)) return `${at} must be array`;
      if (!value.every((item) => typeof item === 'string')) return `${at} must be array of strings`;
      return new Set(value).size === value.length ? undefined : `${at} must NOT have duplicate items`;
    case 'type':
      if (typeof value === 'string') return SIMPLE_TYPES.has(value) ? undefined : `${at} must be equal to one of the allowed values`;
      if (!Array.isArray(value) || value.length < 1) return `${at} must be equal to one of the allowed values or a non-empty array of them`;
      if (!value.every((item) => typeof item === 'string' && SIMPLE_TYPES.has(item))) return `${at} must be equal to one of the allowed values`;
      return new Set(value).size === value.length ? undefined : `${at} must NOT have duplicate items`;
    case 'enum':
      // draft-07: a non-empty array without duplicates.
      if (!Array.isArray(value)) return `${at} must be array`;
      if (value.length < 1) return `${at} must NOT have fewer than 1 items`;
      return value.some((item, index) => value.slice(0, index).some((earlier) => deepEqual(earlier, item))) ? `${at} must NOT have duplicate items` : undefined;
    case 'array':
      return Array.isArray(value) ? undefined : `${at} must be array`;
    case 'string':
      return typeof value === 'string' ? undefined : `${at} must be string`;
    case 'anchor':
      if (typeof value !== 'string') return `${at} must be string`;
      return ANCHOR.test(value) ? undefined : `${at} must match pattern "${ANCHOR.source}"`;
    case 'id':
      if (typeof value !== 'string') return `${at} must be string`;
      return ID.test(value) ? undefined : `${at} must match pattern "${ID.source}"`;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : `${at} must be boolean`;
    case 'number':
      return isNumber(value) ? undefined : `${at} must be number`;
    case 'positiveNumber':
      if (!isNumber(value)) return `${at} must be number`;
      return value > 0 ? undefined : `${at} must be > 0`;
    case 'count':
      if (!isNumber(value) || value % 1 !== 0) return `${at} must be integer`;
      return value >= 0 ? undefined : `${at} must be >= 0`;
  }
}

function firstOf<T>(items: readonly T[], check: (item: T, index: number) => string | undefined): string | undefined {
  for (let index = 0; index < items.length; index++) {
    const problem = check(items[index]!, index);
    if (problem) return problem;
  }
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/** JSON Pointer escaping, as Ajv writes paths. */
function escape(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** Structural equality of JSON values, object keys in any order (what uniqueItems compares). */
function deepEqual(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null) return false;
  if (Array.isArray(left) !== Array.isArray(right)) return false;
  if (Array.isArray(left) && Array.isArray(right)) return left.length === right.length && left.every((item, index) => deepEqual(item, right[index]));
  const leftKeys = Object.keys(left);
  const rightRecord = right as Record<string, unknown>;
  return leftKeys.length === Object.keys(right).length && leftKeys.every((key) => Object.hasOwn(rightRecord, key) && deepEqual((left as Record<string, unknown>)[key], rightRecord[key]));
}

const META_SCHEMAS: Record<SchemaDialect, string> = {
  '2020-12': 'https://json-schema.org/draft/2020-12/schema',
  'draft-07': 'http://json-schema.org/draft-07/schema',
};

/**
 * Throws as Ajv's `validateSchema` throws for a schema its meta-schema rejects ("schema is invalid:
 * …"). A `$schema` naming a meta-schema other than the dialect's own is handed to `otherwise` (Ajv's
 * own check, which knows the vocabulary meta-schemas and refuses the ones it does not know).
 */
export function assertSchemaStructure(schema: Record<string, unknown>, dialect: SchemaDialect, otherwise: (schema: Record<string, unknown>) => void): void {
  const named = schema.$schema;
  if (named !== undefined && (typeof named !== 'string' || named.replace(/#$/, '') !== META_SCHEMAS[dialect])) {
    otherwise(schema);
    return;
  }
  const problem = schemaStructureProblem(schema, dialect);
  if (problem) throw new Error(`schema is invalid: ${problem}`);
}
