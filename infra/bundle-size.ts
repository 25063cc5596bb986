/**
 * `node infra/bundle-size.ts`: bundles each Lambda entry (and the demo MCP server shipped beside
 * them) with exactly the stack's esbuild settings (infra/bundling.ts) and prints the minified and
 * gzipped size of each. The gzipped size is close to what the deployment zip carries; the minified
 * size is what Node parses on a cold start. Source maps are built but not counted.
 * `--json` prints the figures as JSON instead of a table.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { BUNDLED_DEMO_SERVER, DEMO_SERVER_DEFINE, DEMO_SERVER_ENTRY, FUNCTION_ENTRIES, PROJECT_ROOT, esbuildBuildOptions } from './bundling.ts';

export interface BundleSize {
  name: string;
  entry: string;
  minifiedBytes: number;
  gzipBytes: number;
}

async function measure(name: string, entry: string, file: string, define: Record<string, string>, outdir: string): Promise<BundleSize> {
  const outfile = path.join(outdir, name, file);
  const result = await build({ ...esbuildBuildOptions(path.join(PROJECT_ROOT, entry), outfile, define), write: false });
  const code = result.outputFiles.find((file) => file.path === outfile);
  if (code === undefined) throw new Error(`esbuild produced no ${outfile} for ${entry}`);
  return { name, entry, minifiedBytes: code.contents.byteLength, gzipBytes: gzipSync(code.contents).byteLength };
}

export function table(sizes: BundleSize[]): string {
  const rows = [
    ['bundle', 'entry', 'minified', 'gzip'],
    ...sizes.map((size) => [size.name, size.entry, kilobytes(size.minifiedBytes), kilobytes(size.gzipBytes)]),
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) => row.map((cell, column) => (column >= 2 ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!))).join('  ')).join('\n');
}

const kilobytes = (bytes: number): string => `${bytes.toLocaleString('en-US')} B (${(bytes / 1024).toFixed(0)} KiB)`;

/** Every Lambda bundle and the demo MCP server, built into a temporary folder and measured. */
export async function measureBundleSizes(): Promise<BundleSize[]> {
  const outdir = mkdtempSync(path.join(tmpdir(), 'bundle-size-'));
  try {
    return await Promise.all([
      ...Object.entries(FUNCTION_ENTRIES).map(([name, entry]) => measure(name, entry, 'index.mjs', {}, outdir)),
      measure('demo-server', DEMO_SERVER_ENTRY, BUNDLED_DEMO_SERVER, DEMO_SERVER_DEFINE, outdir),
    ]);
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const sizes = await measureBundleSizes();
  console.log(process.argv.includes('--json') ? JSON.stringify(sizes, null, 2) : table(sizes));
}
