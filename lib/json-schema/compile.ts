/**
 * Compiles the JSON Schemas servers send (a tool's inputSchema and outputSchema) with Ajv, once per
 * schema object. Schemas without `$schema` are JSON Schema 2020-12, as MCP specifies; draft-07 and
 * older dialects get the draft-07 compiler. A schema Ajv cannot compile (`"type": "strin"`, a
 * `$ref` to nothing) is reported, so its tool can be left out rather than fail later.
 *
 * One compiler for the MCP adapter (judging tools, the SDK's structuredContent check) and the loop
 * (checking a call's arguments), so a schema is compiled once and judged the same way by both.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { errorMessage } from '../core/errors.ts';
import { assertSchemaStructure } from '../core/json-schema-structure.ts';
import type { JsonObject } from '../core/json.ts';

// Each schema is checked against its meta-schema (that is what catches `"type": "strin"`) by
// assertSchemaStructure rather than by Ajv (validateSchema: false): Ajv would first compile the
// meta-schema, about 60 ms of a cold start. Formats are not validated: servers use formats Ajv does
// not know. Each compiler is built on first use: few servers send draft-07 schemas, and a cold
// start that builds neither until a server lists its tools starts sooner. The generated code is not
// optimized (code.optimize): the passes cost a third of each compile and the validators run as fast.
const OPTIONS = { strict: false, allErrors: true, validateFormats: false, validateSchema: false, meta: false, code: { optimize: false } };
// Ajv's meta-schemas, only for a schema that names one other than its dialect's (rare).
const META_OPTIONS = { ...OPTIONS, meta: true };
let draft07Meta: Ajv | undefined;
let draft2020Meta: Ajv2020 | undefined;
const metaSchemaCheck = (older: boolean) => (other: object) =>
  older ? (draft07Meta ??= new Ajv(META_OPTIONS)).validateSchema(other, true) : (draft2020Meta ??= new Ajv2020(META_OPTIONS)).validateSchema(other, true);
let draft07: Ajv | undefined;
let draft2020: Ajv2020 | undefined;
const compiled = new WeakMap<object, Compiled>();

export type Compiled = { validate: ValidateFunction } | { error: string };

export function compileSchema(schema: JsonObject): Compiled {
  const known = compiled.get(schema);
  if (known) return known;
  const dialect = typeof schema.$schema === 'string' ? schema.$schema : '';
  const older = /draft-0[3-7]/.test(dialect);
  const ajv = older ? (draft07 ??= new Ajv(OPTIONS)) : (draft2020 ??= new Ajv2020(OPTIONS));
  let result: Compiled;
  try {
    // Compiling registers `$id`s: without removing it a second tool reusing an id would fail.
    const { $id: _ignored, ...withoutId } = schema;
    assertSchemaStructure(withoutId, older ? 'draft-07' : '2020-12', metaSchemaCheck(older));
    result = { validate: ajv.compile(withoutId) };
  } catch (error) {
    result = { error: errorMessage(error) };
  }
  compiled.set(schema, result);
  return result;
}
