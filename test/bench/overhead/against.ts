/**
 * `--against DIR`: the warm child of another checkout of this repository (the code before a change,
 * say, in a `git worktree`), run as a side of its own beside this checkout's project, batch by
 * batch. Two runs of the benchmark differ by about ±0.05 in their ratios; two sides of one run,
 * paired batch by batch, tell a change of half a percent (warm.ts: `pairedRatio`).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BundleFolder } from './bundles.ts';

const CHILD = 'test/bench/overhead/warm-project.ts';

export interface AgainstProgram {
  folder: string;
  program: string;
  remove(): void;
}

/** The other checkout's warm child: bundled by that checkout's own bundles.ts, as its benchmark bundles it, or its source. */
export async function againstProgram(folder: string, source: boolean): Promise<AgainstProgram> {
  const root = path.resolve(folder);
  if (!existsSync(path.join(root, CHILD))) throw new Error(`--against: ${root} is not a checkout of this repository (no ${CHILD})`);
  if (!existsSync(path.join(root, 'node_modules'))) throw new Error(`--against: ${root} has no node_modules (run npm ci there, or link this checkout's)`);
  if (source) return { folder: root, program: path.join(root, CHILD), remove: () => {} };
  const bundles = (await import(pathToFileURL(path.join(root, 'test/bench/overhead/bundles.ts')).href)) as { createBundleFolder(): BundleFolder };
  const folderOfBundles = bundles.createBundleFolder();
  const program = await folderOfBundles.bundle(CHILD, 'warm-project.mjs');
  return { folder: root, program, remove: () => folderOfBundles.remove() };
}
