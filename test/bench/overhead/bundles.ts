/**
 * Builds the benchmark's programs with exactly the stack's esbuild settings (infra/bundling.ts),
 * so what runs is what Lambda would run: the stream function, the loops' warm children, the
 * MCP server and the cold-start programs, into one temporary folder.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { BUNDLED_AJV_COMPILERS, DEFAULT_FUNCTION_BUNDLE, PROJECT_ROOT, ajvCompilersBuildOptions, esbuildBuildOptions, functionBuildOptions, type FunctionBundleOptions } from '../../../infra/bundling.ts';

export interface BundleFolder {
  folder: string;
  /**
   * Bundles `entry` (relative to the repository root) to `name` in the folder; returns its path.
   * A Lambda function is bundled with the functions' substitutes (infra/bundling.ts), as deployed:
   * `lambdaFunction: true` as the default stack does, or as a stack of these options does; Ajv
   * then goes beside it, as the stack puts it (BUNDLED_AJV_COMPILERS), for schemas outside the
   * interpreter's subset.
   */
  bundle(entry: string, name: string, options?: { lambdaFunction?: boolean | FunctionBundleOptions }): Promise<string>;
  remove(): void;
}

/**
 * `sourceMapsIn`: the bundles go to that folder instead, each with its source map beside it, and
 * stay there, so that profile-summary.ts can name the original files and functions of a profile
 * of a bundle (`npm run bench -- --cpu-prof DIR` puts them in DIR/bundles).
 */
export function createBundleFolder(options: { sourceMapsIn?: string } = {}): BundleFolder {
  const { sourceMapsIn } = options;
  const folder = sourceMapsIn ?? mkdtempSync(path.join(tmpdir(), 'bench-bundles-'));
  if (sourceMapsIn) mkdirSync(sourceMapsIn, { recursive: true });
  return {
    folder,
    async bundle(entry, name, options = {}) {
      const outfile = path.join(folder, name);
      const source = path.join(PROJECT_ROOT, entry);
      const lambdaFunction = options.lambdaFunction === true ? DEFAULT_FUNCTION_BUNDLE : options.lambdaFunction || undefined;
      const settings = lambdaFunction ? functionBuildOptions(source, outfile, lambdaFunction) : esbuildBuildOptions(source, outfile);
      const besides = lambdaFunction ? [ajvCompilersBuildOptions(path.join(path.dirname(outfile), BUNDLED_AJV_COMPILERS))] : [];
      await Promise.all([settings, ...besides].map((options) => build(sourceMapsIn ? { ...options, sourcemap: true } : options)));
      return outfile;
    },
    remove: () => sourceMapsIn === undefined && rmSync(folder, { recursive: true, force: true }),
  };
}
