/**
 * Requires a file the build puts beside the function's index.mjs (config-validation.cjs,
 * ajv-compilers.cjs): compiled on its own so that a cold start that does not need it never
 * evaluates it, and loaded synchronously on first use, as its callers are synchronous.
 */
// Not `import { createRequire }`: the bundles' banner declares that name (infra/bundling.ts ESM_REQUIRE_BANNER).
import nodeModule from 'node:module';

export function requireBeside<T>(file: string): T {
  return nodeModule.createRequire(import.meta.url)(file) as T;
}
