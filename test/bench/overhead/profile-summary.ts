/**
 * `node test/bench/overhead/profile-summary.ts <file.cpuprofile> [--top N] [--filter TEXT]
 * [--callers TEXT]`: a V8 CPU profile (`npm run bench -- --only cold --cpu-prof DIR`, or of the
 * TypeScript sources with `--source`) summed up: self time by package (or project folder), and self and total time (the function and
 * everything it called) by function. Idle time and the garbage collector are listed as V8 names
 * them. `--callers` lists, for the functions whose name contains the text, the chains of callers
 * (up to 4 frames) that spent their time, to find who pays for a hot library function.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { GREATEST_LOWER_BOUND, originalPositionFor, TraceMap } from '@jridgewell/trace-mapping';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: 'string', default: '30' }, filter: { type: 'string' }, callers: { type: 'string' } },
});
const file = positionals[0];
if (!file) throw new Error('usage: node profile-summary.ts <file.cpuprofile> [--top N] [--filter TEXT]');
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const top = Number(values.top);

// A bundle with its source map beside it (the benchmark's DIR/bundles): frames named by original file and function.
const sourceMaps = new Map<string, TraceMap | undefined>();
const sourceMapOf = (url: string): TraceMap | undefined => {
  if (!sourceMaps.has(url)) {
    const mapFile = url.startsWith('file:') ? `${fileURLToPath(url)}.map` : '';
    sourceMaps.set(url, mapFile && existsSync(mapFile) ? new TraceMap(readFileSync(mapFile, 'utf8')) : undefined);
  }
  return sourceMaps.get(url);
};
for (const node of profile.nodes) {
  const frame = node.callFrame;
  const map = sourceMapOf(frame.url);
  if (!map) continue;
  const original = originalPositionFor(map, { line: frame.lineNumber + 1, column: frame.columnNumber, bias: GREATEST_LOWER_BOUND });
  // The module's own top-level code has no function of its own to map to.
  node.callFrame = original.source
    ? { functionName: original.name ?? frame.functionName, url: original.source, lineNumber: (original.line ?? 1) - 1, columnNumber: original.column ?? 0 }
    : { ...frame, functionName: frame.functionName || '(top-level code of the bundle)' };
}

const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parentOf = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);

/** Where a frame's code lives: a package under node_modules, a project folder, Node itself, or V8. */
function sourceOf(url: string): string {
  if (url === '') return '(V8)';
  const packageName = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1];
  if (packageName) return packageName;
  if (url.startsWith('node:')) return 'node:';
  const project = /\/(lib|functions|test)\/(.+?)\/[^/]+$/.exec(url);
  return project ? `${project[1]}/${project[2]}` : url;
}
const frameName = (node: ProfileNode) => {
  const { functionName, url, lineNumber } = node.callFrame;
  const where = url === '' ? '' : ` ${url.replace(/^.*\/(node_modules\/)?/, '')}:${lineNumber + 1}`;
  return `${functionName || '(anonymous)'}${where}`;
};

const selfBySource = new Map<string, number>();
const selfByFrame = new Map<string, number>();
const totalByFrame = new Map<string, number>();
const byCallers = new Map<string, number>();
let totalUs = 0;
profile.samples.forEach((id, index) => {
  const micros = profile.timeDeltas[index] ?? 0;
  totalUs += micros;
  const node = byId.get(id)!;
  selfBySource.set(sourceOf(node.callFrame.url), (selfBySource.get(sourceOf(node.callFrame.url)) ?? 0) + micros);
  selfByFrame.set(frameName(node), (selfByFrame.get(frameName(node)) ?? 0) + micros);
  // Each function once per sample, however deep it recursed.
  const seen = new Set<string>();
  const stack: string[] = [];
  for (let current: number | undefined = id; current !== undefined; current = parentOf.get(current)) {
    const name = frameName(byId.get(current)!);
    stack.push(name);
    if (seen.has(name)) continue;
    seen.add(name);
    totalByFrame.set(name, (totalByFrame.get(name) ?? 0) + micros);
  }
  const callers = values.callers;
  if (callers !== undefined) {
    const at = stack.findIndex((name) => name.includes(callers));
    if (at >= 0) {
      const chain = stack.slice(at, at + 5).join(' ← ');
      byCallers.set(chain, (byCallers.get(chain) ?? 0) + micros);
    }
  }
});

const busyUs = totalUs - (selfByFrame.get('(idle)') ?? 0) - (selfByFrame.get('(program)') ?? 0);
const share = (micros: number) => `${((micros / busyUs) * 100).toFixed(1).padStart(5)}%`;
const milliseconds = (micros: number) => `${(micros / 1000).toFixed(0).padStart(7)} ms`;
const rows = (entries: Map<string, number>) =>
  [...entries].filter(([name]) => !values.filter || name.includes(values.filter)).sort((a, b) => b[1] - a[1]).slice(0, top);

console.log(`${file}: ${milliseconds(totalUs)} sampled, ${milliseconds(busyUs)} busy (not idle, not "program"); shares are of busy time`);
console.log('\nself time by source');
for (const [name, micros] of rows(selfBySource)) console.log(`${milliseconds(micros)} ${share(micros)}  ${name}`);
console.log('\nself time by function');
for (const [name, micros] of rows(selfByFrame)) console.log(`${milliseconds(micros)} ${share(micros)}  ${name}`);
console.log('\ntotal time by function (itself and what it called)');
for (const [name, micros] of rows(totalByFrame)) console.log(`${milliseconds(micros)} ${share(micros)}  ${name}`);
if (values.callers !== undefined) {
  console.log(`\nwho calls ${values.callers} (total time of each chain)`);
  for (const [chain, micros] of [...byCallers].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${milliseconds(micros)} ${share(micros)}  ${chain}`);
}
