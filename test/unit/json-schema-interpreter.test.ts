/**
 * The interpreter for the common subset of JSON Schema (lib/json-schema/interpret.ts) answers as
 * Ajv does with compile.ts's options: the same verdict and the same `errors` (instancePath,
 * schemaPath, keyword, params, message, in the same order). Seeded random schemas of the subset
 * (nested objects and arrays, several types, both dialects) and values made to fit them, then
 * pushed just outside, are judged by both; hand-picked cases pin the corners.
 */
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../lib/core/json.ts';
import { compileSchema } from '../../lib/json-schema/compile.ts';
import { interpretSchema } from '../../lib/json-schema/interpret.ts';
import { inSubset } from '../../lib/json-schema/subset.ts';

const OPTIONS = { strict: false, allErrors: true, validateFormats: false, validateSchema: false, meta: false, code: { optimize: false } };
const ajv = { '2020-12': new Ajv2020(OPTIONS), 'draft-07': new Ajv(OPTIONS) };
type Dialect = keyof typeof ajv;

/** Both verdicts and both errors, for expect().toEqual. */
function judged(schema: JsonObject, dialect: Dialect, values: unknown[]) {
  const reference = ajv[dialect].compile(schema);
  const interpreted = interpretSchema(schema);
  return values.map((value) => {
    const expected = { valid: reference(value), errors: reference.errors };
    const actual = { valid: interpreted(value), errors: interpreted.errors };
    return { schema, value, expected, actual };
  });
}

function expectSame(schema: JsonObject, dialect: Dialect, values: unknown[]) {
  expect(inSubset(schema)).toBe(true);
  for (const { value, expected, actual } of judged(schema, dialect, values)) {
    expect(actual, `${JSON.stringify(schema)} on ${JSON.stringify(value)}`).toStrictEqual(expected);
  }
}

/** mulberry32: the same cases on every run. */
function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const below = (n: number) => Math.floor(next() * n);
  const pick = <T>(items: readonly T[]): T => items[below(items.length)]!;
  const chance = (p: number) => next() < p;
  return { next, below, pick, chance };
}
type Random = ReturnType<typeof random>;

const NAMES = ['a', 'b', 'id', 'name', 'a/b', 'x~y', '~1', 'with space', 'é', 'q"uote', "it's", 'n0', 'deep'];
const TYPES = ['string', 'number', 'integer', 'boolean', 'null', 'object', 'array'] as const;
const STRINGS = ['', 'a', 'ab', 'abc', 'hello', '😀', '😀😀', 'a😀', '\ud83d', 'ünï', 'x'.repeat(12)];
const NUMBERS = [0, 1, -1, 2, 2.5, 3, 10, -7.25, 100, 1e21, 0.1];
const UNKNOWN: JsonObject = { 'x-mcp-header': 'Region', propertyOrder: ['a', 'b'], 'x-schema': { type: 'number', minimum: 'x', items: [{ anyOf: 1 }] }, strictness: false };
const ANNOTATIONS: JsonObject = { title: 'T', description: 'D', default: 1, examples: [1], $comment: 'c', readOnly: true, writeOnly: false, deprecated: false };

/** A schema of the subset, `depth` levels of properties/items at most. */
function schemaOf(r: Random, depth: number): JsonObject | boolean {
  if (depth < 2 && r.chance(0.04)) return r.chance(0.5);
  const schema: JsonObject = {};
  const shape = depth <= 0 ? r.pick(['string', 'number', 'integer', 'boolean', 'null', 'none', 'multi'] as const) : r.pick([...TYPES, 'none', 'multi', 'object', 'object', 'array'] as const);
  if (shape === 'multi') schema.type = [...new Set([r.pick(TYPES), r.pick(TYPES), ...(r.chance(0.5) ? [r.pick(TYPES)] : [])])];
  else if (shape !== 'none') schema.type = r.chance(0.1) ? [shape] : shape;
  const types = shape === 'none' ? TYPES : (Array.isArray(schema.type) ? schema.type : [schema.type]) as readonly string[];
  const maybe = (p: number, add: () => void) => {
    if (r.chance(p)) add();
  };
  const anyType = shape === 'none' || r.chance(0.15);
  if (anyType || types.includes('number') || types.includes('integer')) {
    maybe(0.3, () => (schema.minimum = r.pick(NUMBERS)));
    maybe(0.3, () => (schema.maximum = r.pick(NUMBERS)));
    maybe(0.15, () => (schema.exclusiveMinimum = r.pick(NUMBERS)));
    maybe(0.15, () => (schema.exclusiveMaximum = r.pick(NUMBERS)));
  }
  if (anyType || types.includes('string')) {
    maybe(0.3, () => (schema.minLength = r.below(4)));
    maybe(0.3, () => (schema.maxLength = r.below(5)));
    maybe(0.2, () => (schema.format = r.pick(['date-time', 'email', 'uri', 'nonsense'])));
  }
  if ((anyType || types.includes('array')) && depth > 0) {
    maybe(0.25, () => (schema.minItems = r.below(3)));
    maybe(0.25, () => (schema.maxItems = r.below(4)));
    maybe(0.7, () => (schema.items = schemaOf(r, depth - 1)));
  }
  if ((anyType || types.includes('object')) && depth > 0) {
    const names = [...new Set(Array.from({ length: r.below(r.chance(0.1) ? 11 : 5) }, () => (r.chance(0.2) ? `p${r.below(20)}` : r.pick(NAMES))))];
    maybe(0.85, () => (schema.properties = Object.fromEntries(names.map((name) => [name, schemaOf(r, depth - 1)]))));
    maybe(0.6, () => (schema.required = [...new Set([...names.filter(() => r.chance(0.6)), ...(r.chance(0.2) ? [r.pick(NAMES)] : [])])]));
    maybe(0.4, () => (schema.additionalProperties = r.chance(0.6) ? false : r.chance(0.2) ? true : schemaOf(r, depth - 1)));
  }
  maybe(0.1, () => (schema.enum = [...new Set([primitiveOf(r), primitiveOf(r), primitiveOf(r)])]));
  maybe(0.06, () => (schema.const = primitiveOf(r)));
  maybe(0.2, () => {
    const keyword = r.pick(Object.keys(ANNOTATIONS));
    schema[keyword] = ANNOTATIONS[keyword]!;
  });
  // Keywords Ajv does not know, which it ignores (strict: false), subschema-like or not.
  maybe(0.1, () => {
    const keyword = r.pick(Object.keys(UNKNOWN));
    schema[keyword] = UNKNOWN[keyword]!;
  });
  return schema;
}

const primitiveOf = (r: Random) => r.pick([...STRINGS, ...NUMBERS, true, false, null]);

/** A value that fits the schema where it can, each part sometimes pushed outside it. */
function valueOf(r: Random, schema: JsonObject | boolean, miss: number, depth = 0): unknown {
  if (r.chance(miss) || typeof schema === 'boolean' || depth > 6) return anyValue(r, 2);
  if (schema.const !== undefined && r.chance(0.7)) return schema.const;
  if (Array.isArray(schema.enum) && r.chance(0.7)) return r.pick(schema.enum);
  const types = schema.type === undefined ? TYPES : ((Array.isArray(schema.type) ? schema.type : [schema.type]) as string[]);
  switch (r.pick(types)) {
    case 'string':
      return r.pick(STRINGS);
    case 'number':
      return r.pick(NUMBERS);
    case 'integer':
      return r.pick(NUMBERS.filter(Number.isInteger));
    case 'boolean':
      return r.chance(0.5);
    case 'null':
      return null;
    case 'array': {
      const items = (schema.items ?? true) as JsonObject | boolean;
      return Array.from({ length: r.below(4) }, () => valueOf(r, items, miss, depth + 1));
    }
    default: {
      const properties = (schema.properties ?? {}) as Record<string, JsonObject | boolean>;
      const value: Record<string, unknown> = {};
      for (const [name, property] of Object.entries(properties)) if (r.chance(0.8)) value[name] = valueOf(r, property, miss, depth + 1);
      if (r.chance(miss * 2)) value[r.pick([...NAMES, 'extra', 'other/one'])] = valueOf(r, (schema.additionalProperties ?? true) as JsonObject | boolean, miss, depth + 1);
      return value;
    }
  }
}

function anyValue(r: Random, depth: number): unknown {
  const kind = r.below(depth > 0 ? 8 : 6);
  if (kind === 0) return r.pick(STRINGS);
  if (kind === 1) return r.pick(NUMBERS);
  if (kind === 2) return r.chance(0.5);
  if (kind === 3) return null;
  if (kind === 4 || kind === 5) return r.pick(['', 0, [], {}, 'x', 1.5]);
  if (kind === 6) return Array.from({ length: r.below(3) }, () => anyValue(r, depth - 1));
  return Object.fromEntries(Array.from({ length: r.below(3) }, () => [r.pick(NAMES), anyValue(r, depth - 1)]));
}

const SCHEMAS = 1500;
const VALUES_PER_SCHEMA = 6;

describe.each(['2020-12', 'draft-07'] as const)('the interpreter against Ajv (%s)', (dialect) => {
  it(`gives Ajv's verdict and errors on ${SCHEMAS} random schemas of the subset, ${VALUES_PER_SCHEMA} values each`, () => {
    const r = random(dialect === '2020-12' ? 2020 : 7);
    let invalid = 0;
    let compared = 0;
    for (let index = 0; index < SCHEMAS; index++) {
      const root = schemaOf(r, 3);
      const schema: JsonObject = typeof root === 'boolean' ? { type: 'object', additionalProperties: root } : root;
      if (dialect === 'draft-07' && r.chance(0.5)) schema.$schema = 'http://json-schema.org/draft-07/schema#';
      if (dialect === '2020-12' && r.chance(0.3)) schema.$schema = 'https://json-schema.org/draft/2020-12/schema';
      const values = Array.from({ length: VALUES_PER_SCHEMA }, (_, n) => valueOf(r, schema, n === 0 ? 0 : n < 3 ? 0.05 : 0.25));
      for (const { value, expected, actual } of judged(schema, dialect, values)) {
        expect(actual, `${JSON.stringify(schema)} on ${JSON.stringify(value)}`).toStrictEqual(expected);
        compared++;
        if (!expected.valid) invalid++;
      }
      expect(inSubset(schema)).toBe(true);
    }
    // The values are a mix: neither all valid nor all invalid, and many errors each.
    expect(compared).toBe(SCHEMAS * VALUES_PER_SCHEMA);
    expect(invalid).toBeGreaterThan(compared / 4);
    expect(invalid).toBeLessThan((compared * 3) / 4);
  });
});

describe('the interpreter on hand-picked cases, against Ajv', () => {
  const object: JsonObject = {
    type: 'object',
    properties: { name: { type: 'string', minLength: 1 }, count: { type: 'integer', minimum: 0 }, tags: { type: 'array', items: { type: 'string' }, maxItems: 2 } },
    required: ['name', 'count'],
  };

  it.each(['2020-12', 'draft-07'] as const)('missing required fields, extra fields, wrong types (%s)', (dialect) => {
    expectSame(object, dialect, [{}, { name: 'a' }, { name: '', count: -1 }, { name: 'a', count: 1.5 }, { name: 1, count: '1' }, { name: 'a', count: 1, tags: ['x', 2, null] }, null, [], 'text']);
    expectSame({ ...object, additionalProperties: false }, dialect, [{ name: 'a', count: 1, extra: true, other: 1 }, { extra: 1 }]);
    expectSame({ ...object, additionalProperties: { type: 'number', maximum: 3 } }, dialect, [{ name: 'a', count: 1, extra: 4, other: 'x', ok: 2 }]);
  });

  it('integer against number, and null', () => {
    expectSame({ type: 'integer' }, '2020-12', [1, 1.5, 1e21, '1', null, true]);
    expectSame({ type: 'number', minimum: 2 }, '2020-12', [1, 1.5, 3, '1', null]);
    expectSame({ type: ['integer', 'null'], maximum: 3 }, '2020-12', [null, 2, 2.5, 4, 4.5, 'x']);
    expectSame({ type: 'null', enum: [null, 1] }, '2020-12', [null, 1, 0]);
    expectSame({ type: ['string', 'null'], minLength: 2 }, '2020-12', [null, 'a', 'ab', 3]);
  });

  it('empty strings and arrays, and lengths in code points as Ajv counts them', () => {
    expectSame({ type: 'string', minLength: 1, maxLength: 2 }, '2020-12', ['', 'a', '😀😀', '😀😀😀', 'a😀', '\ud83d\ud83d\ud83d', '\ud83d']);
    expectSame({ type: 'array', minItems: 1, maxItems: 2 }, '2020-12', [[], [1], [1, 2, 3]]);
  });

  it('names with "/" and "~" escaped in instancePath and schemaPath as JSON Pointers, nested', () => {
    const schema: JsonObject = {
      type: 'object',
      properties: { 'a/b': { type: 'object', properties: { 'c~d': { type: 'array', items: { type: 'object', required: ['e/f'], properties: { 'g h%': { type: 'number' } } } } } } },
      additionalProperties: { type: 'string' },
    };
    expectSame(schema, '2020-12', [{ 'a/b': { 'c~d': [{}, { 'g h%': 'x' }, 3] }, 'x/~y': 1 }]);
    const result = judged(schema, '2020-12', [{ 'a/b': { 'c~d': [{ 'g h%': 'x' }] } }])[0]!;
    expect(result.actual.errors).toEqual([expect.objectContaining({ instancePath: '/a~1b/c~0d/0', schemaPath: '#/properties/a~1b/properties/c~0d/items/required' }), expect.objectContaining({ instancePath: '/a~1b/c~0d/0/g h%', schemaPath: '#/properties/a~1b/properties/c~0d/items/properties/g%20h%25/type' })]);
  });

  it('the type error in its group\'s place when the schema uses that group, first otherwise', () => {
    expectSame({ type: 'object', enum: [1, 'a'], required: ['x'] }, '2020-12', [2, {}]);
    expectSame({ type: 'object', enum: [1, 'a'] }, '2020-12', [2]);
    expectSame({ type: 'string', format: 'email', const: 'a' }, '2020-12', [2, 'b']);
    expectSame({ type: 'number', format: 'x', enum: [1] }, '2020-12', ['1']);
    expectSame({ maximum: 1, minLength: 2, maxItems: 0, required: ['a'] }, '2020-12', [2, 'a', [1], {}, null]);
  });

  it('more than eight declared properties, inherited names and false subschemas', () => {
    const nine = Object.fromEntries(Array.from({ length: 9 }, (_, n) => [`p${n}`, { type: 'string' }]));
    expectSame({ type: 'object', properties: nine, additionalProperties: false }, '2020-12', [{ p0: 'a', p9: 1, toString: 1 }]);
    expectSame({ type: 'object', properties: { toString: { type: 'string' }, a: false }, required: ['constructor', 'b'] }, '2020-12', [{}, { a: 1 }]);
    expectSame({ type: 'array', items: false }, '2020-12', [[], [1, 2]]);
    expectSame({ properties: { a: true, b: {} }, additionalProperties: true }, 'draft-07', [{ a: 1, b: 2, c: 3 }]);
  });

  it('valid leaves errors null, as Ajv does, and invalid then valid resets them', () => {
    const validate = interpretSchema(object);
    expect(validate({ name: 'a', count: 1 })).toBe(true);
    expect(validate.errors).toBeNull();
    expect(validate({})).toBe(false);
    expect(validate.errors).toHaveLength(2);
    expect(validate({ name: 'a', count: 1 })).toBe(true);
    expect(validate.errors).toBeNull();
  });
});

describe('which schemas the interpreter takes', () => {
  it('takes keywords Ajv does not know either, which both ignore', () => {
    const schema: JsonObject = { type: 'object', 'x-order': 1, properties: { region: { type: 'string', 'x-mcp-header': 'Region', 'x-nested': { type: 'number' } } } };
    expectSame(schema, '2020-12', [{ region: 'a' }, { region: 1 }]);
  });

  it('leaves to Ajv every keyword outside the subset, an enum or const of objects, a nested $id or $schema and draft-07 tuples', () => {
    for (const schema of [
      { anyOf: [{ type: 'string' }] }, { type: 'string', pattern: '^a' }, { properties: { a: { $ref: '#' } } }, { enum: [{ a: 1 }] }, { const: [1] },
      { properties: { a: { $id: 'x' } } }, { items: { $schema: 'http://json-schema.org/draft-07/schema#' } }, { items: [{ type: 'string' }] }, { enum: [] },
      { type: 'string', nullable: true }, { $defs: { a: { type: 'string' } } }, { type: 'object', discriminator: { propertyName: 'kind' } },
      { type: 'string', contentMediaType: 'application/json' }, { type: 'object', 'x-schema': { properties: { a: { $id: 'x' } } } }, { properties: { a: { uniqueItems: true } } },
    ] as JsonObject[]) {
      expect(inSubset(schema), JSON.stringify(schema)).toBe(false);
    }
  });

  it('compileSchema validates a subset schema without Ajv and the rest with it, the same way', () => {
    const subset = compileSchema({ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] });
    const other = compileSchema({ type: 'object', properties: { a: { type: 'string', pattern: '^x' } }, required: ['a'] });
    if ('error' in subset || 'error' in other) throw new Error('both compile');
    expect(subset.validate({})).toBe(false);
    expect(other.validate({ a: 'y' })).toBe(false);
    expect(other.validate.errors).toEqual([expect.objectContaining({ keyword: 'pattern', instancePath: '/a' })]);
    expect('schemaEnv' in subset.validate).toBe(false);
    expect('schemaEnv' in other.validate).toBe(true);
  });
});
