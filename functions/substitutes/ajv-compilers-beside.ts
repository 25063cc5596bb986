/**
 * Stands in for lib/json-schema/ajv-compilers.ts (`#ajv-compilers`) in the Lambda bundles
 * (infra/bundling.ts, functionSubstitutes). Tool schemas of the common subset are validated by
 * lib/json-schema/interpret.ts; only a schema outside it needs Ajv (about 135 KB with fast-uri, 5 ms
 * of a cold start to evaluate, 9 ms more to generate the first validator). Ajv is compiled to its
 * own file beside the function (BUNDLED_AJV_COMPILERS), required on first use: synchronously, as
 * compileSchema is, and not at all on a cold start whose tools all fit the subset.
 */
import { errorMessage } from '../../lib/core/errors.ts';
import type * as Compilers from '../../lib/json-schema/ajv-compilers.ts';
import { requireBeside } from './require-beside.ts';

/** infra/bundling.ts BUNDLED_AJV_COMPILERS: the build puts it beside index.mjs. */
const COMPILERS_FILE = './ajv-compilers.cjs';

let compilers: typeof Compilers | undefined;

export const compileWithAjv: typeof Compilers.compileWithAjv = (schema, older) => load().compileWithAjv(schema, older);
export const matchesMetaSchema: typeof Compilers.matchesMetaSchema = (schema, older) => load().matchesMetaSchema(schema, older);

function load(): typeof Compilers {
  if (compilers) return compilers;
  try {
    compilers = requireBeside<typeof Compilers>(COMPILERS_FILE);
  } catch (error) {
    // compileSchema reports it as the schema's error: the tool is left out, with this reason.
    throw new Error(`this schema needs Ajv, and Ajv beside the function (${COMPILERS_FILE}) cannot be loaded: ${errorMessage(error)}`, { cause: error });
  }
  return compilers;
}
