/**
 * Compiles the JSON Schemas servers send (a tool's inputSchema and outputSchema), once per schema
 * object. Schemas without `$schema` are JSON Schema 2020-12, as MCP specifies; draft-07 and older
 * dialects get the draft-07 compiler. A schema that cannot be compiled (`"type": "strin"`, a `$ref`
 * to nothing) is reported, so its tool can be left out rather than fail later.
 *
 * Most schemas use only the common keywords (subset.ts): interpret.ts validates those, exactly as
 * Ajv would, without Ajv's code generation. The rest go to Ajv (`#ajv-compilers`), which a Lambda
 * function loads only then.
 *
 * One compiler for the MCP adapter (judging tools, the SDK's structuredContent check) and the loop
 * (checking a call's arguments), so a schema is compiled once and judged the same way by both.
 */
import { compileWithAjv, matchesMetaSchema } from '#ajv-compilers';
import { errorMessage } from '../core/errors.ts';
import { assertSchemaStructure } from '../core/json-schema-structure.ts';
import type { JsonObject } from '../core/json.ts';
import { interpretSchema, type Validator } from './interpret.ts';
import { inSubset } from './subset.ts';

export type { Validator } from './interpret.ts';
export type Compiled = { validate: Validator } | { error: string };

const compiled = new WeakMap<object, Compiled>();

export function compileSchema(schema: JsonObject): Compiled {
  const known = compiled.get(schema);
  if (known) return known;
  const dialect = typeof schema.$schema === 'string' ? schema.$schema : '';
  const older = /draft-0[3-7]/.test(dialect);
  let result: Compiled;
  try {
    // Compiling registers `$id`s: without removing it a second tool reusing an id would fail.
    const { $id: _ignored, ...withoutId } = schema;
    // A schema naming a meta-schema other than its dialect's is checked by Ajv against that one.
    let otherMetaSchema = false;
    assertSchemaStructure(withoutId, older ? 'draft-07' : '2020-12', (other) => {
      otherMetaSchema = true;
      matchesMetaSchema(other, older);
    });
    const validate = !otherMetaSchema && inSubset(withoutId) ? interpretSchema(withoutId) : compileWithAjv(withoutId, older);
    result = { validate };
  } catch (error) {
    result = { error: errorMessage(error) };
  }
  compiled.set(schema, result);
  return result;
}
