/**
 * `npm run bundle-size` (node infra/bundle-size.ts [--json] [--packages] [--write DIR]): bundles
 * each Lambda entry (and the demo MCP server shipped beside them) exactly as the stack bundles them
 * (infra/bundling.ts: the esbuild settings and the functions' substitutes), for a stack on an
 * OpenAI-compatible model (`stream`) and for one on Bedrock (`stream (bedrock)`), and prints the
 * minified and gzipped size of each. The gzipped size is close to what the deployment zip carries; the
 * minified size is what Node parses on a cold start.
 *   --json      the figures as JSON instead of a table
 *   --packages  where each bundle's bytes come from: the largest packages (esbuild's metafile)
 *   --write DIR the bundles and their source maps, in DIR/<bundle>/: the code is byte for byte the
 *               deployed code, so the map reads a stack trace from the logs back to the sources
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { build, type BuildOptions, type Metafile } from 'esbuild';
import { BEDROCK_FUNCTION_BUNDLE, BUNDLED_DEMO_SERVER, DEFAULT_FUNCTION_BUNDLE, DEMO_SERVER_DEFINE, DEMO_SERVER_ENTRY, FUNCTION_ENTRIES, PROJECT_ROOT, esbuildBuildOptions, functionBuildOptions, type FunctionBundleOptions } from './bundling.ts';

export interface BundleSize {
  name: string;
  entry: string;
  minifiedBytes: number;
  gzipBytes: number;
  /** Bytes of the minified output per package (or project folder), largest first. */
  packages: { source: string; bytes: number }[];
}

interface Bundle {
  name: string;
  entry: string;
  file: string;
  options: (outfile: string) => BuildOptions;
}

const functionBundles = (suffix: string, bundle: FunctionBundleOptions): Bundle[] =>
  Object.entries(FUNCTION_ENTRIES).map(([name, entry]) => ({
    name: `${name}${suffix}`,
    entry,
    file: 'index.mjs',
    options: (outfile: string) => functionBuildOptions(path.join(PROJECT_ROOT, entry), outfile, bundle),
  }));

const BUNDLES: Bundle[] = [
  ...functionBundles('', DEFAULT_FUNCTION_BUNDLE),
  ...functionBundles(' (bedrock)', BEDROCK_FUNCTION_BUNDLE),
  {
    name: 'demo-server',
    entry: DEMO_SERVER_ENTRY,
    file: BUNDLED_DEMO_SERVER,
    options: (outfile: string) => esbuildBuildOptions(path.join(PROJECT_ROOT, DEMO_SERVER_ENTRY), outfile, DEMO_SERVER_DEFINE),
  },
];

async function measure(bundle: Bundle, outdir: string, write: boolean): Promise<BundleSize> {
  const outfile = path.join(outdir, bundle.name, bundle.file);
  if (write) mkdirSync(path.dirname(outfile), { recursive: true });
  const result = await build({ ...bundle.options(outfile), write, metafile: true, ...(write ? { sourcemap: 'external' as const, sourcesContent: false } : {}) });
  const output = result.metafile.outputs[path.relative(process.cwd(), outfile)] ?? Object.values(result.metafile.outputs).find((candidate) => candidate.entryPoint);
  if (output === undefined) throw new Error(`esbuild produced no ${outfile} for ${bundle.entry}`);
  const code = write ? undefined : result.outputFiles?.find((file) => file.path === outfile)?.contents;
  return {
    name: bundle.name,
    entry: bundle.entry,
    minifiedBytes: output.bytes,
    gzipBytes: code ? gzipSync(code).byteLength : Number.NaN,
    packages: bySource(output),
  };
}

/** A file's package (`@scope/name`), or for the project's own files their first two folders. */
function bySource(output: Metafile['outputs'][string]): BundleSize['packages'] {
  const totals = new Map<string, number>();
  for (const [file, { bytesInOutput }] of Object.entries(output.inputs)) {
    const packageName = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file)?.[1];
    const source = packageName ?? file.split('/').slice(0, 2).join('/');
    totals.set(source, (totals.get(source) ?? 0) + bytesInOutput);
  }
  return [...totals].map(([source, bytes]) => ({ source, bytes })).sort((a, b) => b.bytes - a.bytes);
}

/** Every Lambda bundle and the demo MCP server, built in memory (or written to `writeTo`) and measured. */
export async function measureBundleSizes(writeTo?: string): Promise<BundleSize[]> {
  const outdir = writeTo ?? mkdtempSync(path.join(tmpdir(), 'bundle-size-'));
  try {
    return await Promise.all(BUNDLES.map((bundle) => measure(bundle, outdir, writeTo !== undefined)));
  } finally {
    if (writeTo === undefined) rmSync(outdir, { recursive: true, force: true });
  }
}

export function table(sizes: BundleSize[]): string {
  const rows = [
    ['bundle', 'entry', 'minified', 'gzip'],
    ...sizes.map((size) => [size.name, size.entry, kilobytes(size.minifiedBytes), Number.isNaN(size.gzipBytes) ? '' : kilobytes(size.gzipBytes)]),
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) => row.map((cell, column) => (column >= 2 ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!))).join('  ')).join('\n');
}

const kilobytes = (bytes: number): string => `${bytes.toLocaleString('en-US')} B (${(bytes / 1024).toFixed(0)} KiB)`;

if (import.meta.main) {
  const { values } = parseArgs({ options: { json: { type: 'boolean', default: false }, packages: { type: 'boolean', default: false }, write: { type: 'string' } } });
  const sizes = await measureBundleSizes(values.write === undefined ? undefined : path.resolve(values.write));
  if (values.json) {
    console.log(JSON.stringify(sizes.map(({ packages, ...size }) => (values.packages ? { ...size, packages } : size)), null, 2));
  } else {
    console.log(table(sizes));
    if (values.packages) {
      for (const size of sizes) {
        console.log(`\n${size.name}: the largest sources`);
        for (const { source, bytes } of size.packages.slice(0, 15)) console.log(`  ${bytes.toLocaleString('en-US').padStart(9)} B  ${source}`);
      }
    }
    if (values.write) console.log(`\nWritten to ${values.write}, each bundle with its source map.`);
  }
}
