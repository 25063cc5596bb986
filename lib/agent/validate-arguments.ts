import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { assertSchemaStructure } from '../core/json-schema-structure.ts';
import type { JsonObject } from '../core/ports.ts';

/**
 * Checks a tool call's arguments against the tool's `inputSchema` before the server sees them, so
 * the model gets a precise correction ("missing required field orderNos") instead of whatever the
 * server would say. Schemas without `$schema` are JSON Schema 2020-12, as MCP specifies; draft-07
 * and older dialects get the draft-07 validator. A schema that cannot be compiled is not checked
 * here (the server still validates).
 */
// The meta-schema check is assertSchemaStructure's, not Ajv's (which would compile the meta-schema
// first: tens of milliseconds of a cold start); each validator is built on first use.
const OPTIONS = { strict: false, allErrors: true, validateFormats: false, validateSchema: false, meta: false };
// Ajv's meta-schemas, only for a schema that names one other than its dialect's (rare).
const META_OPTIONS = { ...OPTIONS, meta: true };
let draft07Meta: Ajv | undefined;
let draft2020Meta: Ajv2020 | undefined;
const metaSchemaCheck = (older: boolean) => (other: object) =>
  older ? (draft07Meta ??= new Ajv(META_OPTIONS)).validateSchema(other, true) : (draft2020Meta ??= new Ajv2020(META_OPTIONS)).validateSchema(other, true);
let draft07: Ajv | undefined;
let draft2020: Ajv2020 | undefined;
const compiled = new WeakMap<JsonObject, ValidateFunction | null>();

export type ArgumentCheck = { valid: true } | { valid: false; problems: string };

export function checkArguments(schema: JsonObject, args: JsonObject): ArgumentCheck {
  const validate = validatorFor(schema);
  if (!validate || validate(args)) return { valid: true };
  return { valid: false, problems: describeProblems(validate.errors ?? [], schema, args) };
}

function validatorFor(schema: JsonObject): ValidateFunction | null {
  if (compiled.has(schema)) return compiled.get(schema)!;
  const dialect = typeof schema.$schema === 'string' ? schema.$schema : '';
  const older = /draft-0[4-7]/.test(dialect);
  const ajv = older ? (draft07 ??= new Ajv(OPTIONS)) : (draft2020 ??= new Ajv2020(OPTIONS));
  let validate: ValidateFunction | null;
  try {
    // Compiling registers `$id`s; without removing it, a second tool reusing an id would fail.
    const { $id: _ignored, ...withoutId } = schema;
    assertSchemaStructure(withoutId, older ? 'draft-07' : '2020-12', metaSchemaCheck(older));
    validate = ajv.compile(withoutId);
  } catch {
    validate = null;
  }
  compiled.set(schema, validate);
  return validate;
}

function describeProblems(errors: readonly ErrorObject[], schema: JsonObject, args: JsonObject): string {
  const problems = new Set<string>();
  for (const error of errors) {
    const at = error.instancePath ? error.instancePath.slice(1).replaceAll('/', '.') : '';
    if (error.keyword === 'required') {
      const field = [at, String(error.params.missingProperty)].filter(Boolean).join('.');
      problems.add(`missing required field "${field}"`);
    } else if (error.keyword === 'additionalProperties') {
      const field = [at, String(error.params.additionalProperty)].filter(Boolean).join('.');
      problems.add(`unexpected field "${field}"`);
    } else {
      problems.add(`"${at || '(arguments)'}" ${error.message ?? 'is invalid'}`);
    }
  }
  // Fields the schema does not declare are often the real mistake (orderNo for orderNos), even
  // when the schema allows extra properties: name them too.
  const properties = schema.properties;
  if (properties && typeof properties === 'object') {
    const known = Object.keys(properties);
    for (const field of Object.keys(args)) {
      if (!known.includes(field)) problems.add(`unexpected field "${field}"`);
    }
    if (known.length > 0) problems.add(`expected fields: ${known.join(', ')}`);
  }
  return [...problems].join('; ');
}
