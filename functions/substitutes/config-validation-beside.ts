/**
 * Stands in for lib/config/validate.ts (`#config-validation`) in the Lambda bundles
 * (infra/bundling.ts, functionSubstitutes). The build writes agent.json pre-validated
 * (infra/bundled-config.ts), so a cold start takes the configuration without agent.yml's zod
 * schemas, whose construction cost about 13 ms of every cold start. An agent.json the build did not
 * validate (one with a placeholder the schema must check, one from another build, or written by
 * hand) is validated by lib/config/validate.ts compiled to its own file beside the function
 * (BUNDLED_CONFIG_VALIDATION), required on first use.
 *
 * A separate file rather than a module of the bundle evaluated on first use: esbuild wraps such a
 * module and everything it imports, zod included, for evaluation on demand, and then leaves out the
 * initialisation where the MCP SDK imports zod through a side-effect-free entry (`zod/v4`), so the
 * bundle fails at load (evanw/esbuild#2326).
 */
import { ConfigError, errorMessage } from '../../lib/core/errors.ts';
import type * as Validation from '../../lib/config/validate.ts';
import { requireBeside } from './require-beside.ts';

/** The version of agent.yml's schema this bundle was built with (an esbuild define, infra/bundling.ts configSchemaDefine). */
declare const BUNDLED_CONFIG_SCHEMA: string | undefined;

export const ACCEPTED_PREVALIDATION: string | undefined = typeof BUNDLED_CONFIG_SCHEMA === 'string' ? BUNDLED_CONFIG_SCHEMA : undefined;

/** infra/bundling.ts BUNDLED_CONFIG_VALIDATION: the build puts it beside index.mjs. */
const VALIDATION_FILE = './config-validation.cjs';

let validation: typeof Validation | undefined;

export const validateFile: typeof Validation.validateFile = (document, source) => {
  const { validateFile: validate } = (validation ??= load(source));
  try {
    return validate(document, source);
  } catch (error) {
    // The file beside carries its own copy of the error classes: give callers this bundle's ConfigError.
    if ((error as { code?: unknown }).code === 'invalid_config') throw new ConfigError((error as Error).message, { cause: error });
    throw error;
  }
};

function load(source: string): typeof Validation {
  try {
    return requireBeside<typeof Validation>(VALIDATION_FILE);
  } catch (error) {
    throw new ConfigError(
      `${source} was not validated when this function was built, and the validation beside the function (${VALIDATION_FILE}) cannot be loaded: ${errorMessage(error)}`,
      { cause: error },
    );
  }
}
