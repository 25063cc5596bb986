/**
 * The structural check that stands in for Ajv's meta-schema validation (lib/core/json-schema-structure.ts)
 * gives Ajv's verdict on every keyword of both dialects, with values of every kind, at the top of a
 * schema and inside subschemas. Ajv itself, with its meta-schemas compiled, is the reference.
 */
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { assertSchemaStructure, schemaStructureProblem, type SchemaDialect } from '../../lib/core/json-schema-structure.ts';

const OPTIONS = { strict: false, allErrors: true, validateFormats: false };
const references: Record<SchemaDialect, Ajv> = { '2020-12': new Ajv2020(OPTIONS), 'draft-07': new Ajv(OPTIONS) };

const KEYWORDS = [
  '$id', '$schema', '$ref', '$comment', '$anchor', '$dynamicRef', '$dynamicAnchor', '$vocabulary', '$defs', '$recursiveAnchor', '$recursiveRef',
  'title', 'description', 'default', 'readOnly', 'writeOnly', 'deprecated', 'examples', 'multipleOf', 'maximum', 'exclusiveMaximum', 'minimum',
  'exclusiveMinimum', 'maxLength', 'minLength', 'pattern', 'additionalItems', 'items', 'prefixItems', 'maxItems', 'minItems', 'uniqueItems',
  'contains', 'maxContains', 'minContains', 'maxProperties', 'minProperties', 'required', 'additionalProperties', 'definitions', 'properties',
  'patternProperties', 'dependencies', 'dependentSchemas', 'dependentRequired', 'propertyNames', 'const', 'enum', 'type', 'format',
  'contentMediaType', 'contentEncoding', 'contentSchema', 'if', 'then', 'else', 'allOf', 'anyOf', 'oneOf', 'not', 'unevaluatedItems',
  'unevaluatedProperties', 'notAKeyword',
];

const VALUES: unknown[] = [
  'string', 'strin', 'a#b', 'ok#', '1abc', 5, 0, -1, 1.5, true, false, null, [], ['a'], ['a', 'a'], ['a', 1], [{}], [{ type: 'strin' }], [true],
  ['string', 'number'], ['string', 'string'], ['strin'], [1, 1], [{ a: 1 }, { a: 1 }], [{ a: 1, b: 2 }, { b: 2, a: 1 }], [[1], [1]],
  {}, { a: 5 }, { a: { type: 'string' } }, { a: { type: 'strin' } }, { a: ['b'] }, { a: ['b', 'b'] }, { a: true }, { a: 'x' },
  { type: 'string' }, { type: 'strin' }, { properties: { b: { minLength: -1 } } },
];

function placements(keyword: string, value: unknown): Record<string, unknown>[] {
  return [
    { [keyword]: value },
    { type: 'object', properties: { x: { [keyword]: value } } },
    { anyOf: [{ type: 'string' }, { [keyword]: value }] },
    { $defs: { y: { [keyword]: value } }, definitions: { y: { [keyword]: value } } },
  ];
}

describe.each(['2020-12', 'draft-07'] as const)('the structure of a %s schema', (dialect) => {
  it('is judged as Ajv judges it against the meta-schema', () => {
    const disagreements: string[] = [];
    for (const keyword of KEYWORDS) {
      for (const value of VALUES) {
        for (const schema of placements(keyword, value)) {
          if (keyword === '$schema') continue; // another meta-schema: left to Ajv (below)
          const expected = references[dialect].validateSchema(schema) as boolean;
          const actual = schemaStructureProblem(schema, dialect) === undefined;
          if (actual !== expected) disagreements.push(`${JSON.stringify(schema)}: Ajv ${expected ? 'accepts' : 'rejects'} it`);
        }
      }
    }
    expect(disagreements).toEqual([]);
  });
});

describe('assertSchemaStructure', () => {
  it('names the misspelt type where it is', () => {
    expect(() => assertSchemaStructure({ type: 'object', properties: { city: { type: 'strin' } } }, '2020-12', () => {})).toThrow(
      'schema is invalid: data/properties/city/type must be equal to one of the allowed values',
    );
  });

  it('accepts a schema that names its own dialect, with or without the trailing #', () => {
    expect(() => assertSchemaStructure({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'string' }, '2020-12', () => {})).not.toThrow();
    expect(() => assertSchemaStructure({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'string' }, 'draft-07', () => {})).not.toThrow();
  });

  it('leaves a schema naming another meta-schema to Ajv', () => {
    const handed: unknown[] = [];
    const schema = { $schema: 'http://json-schema.org/draft-04/schema#', type: 'strin' };

    assertSchemaStructure(schema, 'draft-07', (other) => handed.push(other));

    expect(handed).toEqual([schema]);
    expect(() => assertSchemaStructure(schema, 'draft-07', (other) => references['draft-07'].validateSchema(other, true))).toThrow(/no schema with key or ref/);
  });
});
