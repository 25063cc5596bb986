/**
 * Builds the benchmark's programs with exactly the stack's esbuild settings (infra/bundling.ts),
 * so what runs is what Lambda would run: the stream function, the two loops' warm children, the
 * MCP server and the cold-start programs, into one temporary folder.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { PROJECT_ROOT, esbuildBuildOptions, functionBuildOptions } from '../../../infra/bundling.ts';

export interface BundleFolder {
  folder: string;
  /**
   * Bundles `entry` (relative to the repository root) to `name` in the folder; returns its path.
   * A Lambda function is bundled with the functions' substitutes (infra/bundling.ts), as deployed.
   */
  bundle(entry: string, name: string, options?: { lambdaFunction?: boolean }): Promise<string>;
  remove(): void;
}

export function createBundleFolder(): BundleFolder {
  const folder = mkdtempSync(path.join(tmpdir(), 'bench-bundles-'));
  return {
    folder,
    async bundle(entry, name, options = {}) {
      const outfile = path.join(folder, name);
      const source = path.join(PROJECT_ROOT, entry);
      await build(options.lambdaFunction ? functionBuildOptions(source, outfile) : esbuildBuildOptions(source, outfile));
      return outfile;
    },
    remove: () => rmSync(folder, { recursive: true, force: true }),
  };
}
