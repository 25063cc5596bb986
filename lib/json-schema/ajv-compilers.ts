/**
 * Ajv, for the schemas the interpreter does not take (subset.ts) and for a schema that names a
 * meta-schema other than its dialect's. compile.ts imports it as `#ajv-compilers` (package.json
 * "imports"): the Lambda bundles take functions/substitutes/ajv-compilers-beside.ts instead, which
 * requires this file compiled on its own beside the function on first use, so a cold start whose
 * tools all fit the subset never loads Ajv (its modules take about 5 ms to evaluate).
 */
import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';

// Each schema is checked against its meta-schema (that is what catches `"type": "strin"`) by
// assertSchemaStructure rather than by Ajv (validateSchema: false): Ajv would first compile the
// meta-schema, about 60 ms of a cold start. Formats are not validated: servers use formats Ajv does
// not know. Each compiler is built on first use: few servers send draft-07 schemas, and a cold
// start that builds neither until a server lists its tools starts sooner. The generated code is not
// optimized (code.optimize): the passes cost a third of each compile and the validators run as fast.
// interpret.ts answers as Ajv with exactly these options does.
const OPTIONS = { strict: false, allErrors: true, validateFormats: false, validateSchema: false, meta: false, code: { optimize: false } };
// Ajv's meta-schemas, only for a schema that names one other than its dialect's (rare).
const META_OPTIONS = { ...OPTIONS, meta: true };
let draft07Meta: Ajv | undefined;
let draft2020Meta: Ajv2020 | undefined;
let draft07: Ajv | undefined;
let draft2020: Ajv2020 | undefined;

/** Ajv's validator for a schema of draft-07 or older (`older`) or of 2020-12; throws what Ajv throws. */
export function compileWithAjv(schema: object, older: boolean): ValidateFunction {
  const ajv = older ? (draft07 ??= new Ajv(OPTIONS)) : (draft2020 ??= new Ajv2020(OPTIONS));
  return ajv.compile(schema);
}

/** Whether `schema` is valid against the meta-schema it names (Ajv's validateSchema). */
export function matchesMetaSchema(schema: object, older: boolean): boolean {
  const ajv = older ? (draft07Meta ??= new Ajv(META_OPTIONS)) : (draft2020Meta ??= new Ajv2020(META_OPTIONS));
  return ajv.validateSchema(schema, true) as boolean;
}
