/**
 * `npm run conformance`: every client scenario of @modelcontextprotocol/conformance against the
 * gateway (test/conformance/client.ts), then one line per scenario and the pass count. Exits
 * non-zero when a scenario fails that test/conformance/expected-failures.yml does not list, or one
 * listed there passes (the suite's own baseline check).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const output = mkdtempSync(join(tmpdir(), 'mcp-conformance-'));
const run = spawnSync(
  process.execPath,
  [
    join(root, 'node_modules/@modelcontextprotocol/conformance/dist/index.js'),
    'client',
    '--command', `${process.execPath} ${join(root, 'test/conformance/client.ts')}`,
    '--suite', 'all',
    // The suite starts all 48 clients at once; on a loaded two-core machine loading the gateway
    // alone can take longer than the suite's default 30 s per client.
    '--timeout', '120000',
    '--expected-failures', join(root, 'test/conformance/expected-failures.yml'),
    '--output-dir', output,
  ],
  { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
);

/** Scenario name → passed, from each result folder's checks.json ("<scenario>-<timestamp>/checks.json"). */
const results = new Map<string, boolean>();
function collect(folder: string, prefix: string): void {
  for (const entry of readdirSync(folder)) {
    const path = join(folder, entry);
    if (!statSync(path).isDirectory()) continue;
    const checksFile = join(path, 'checks.json');
    try {
      const checks = JSON.parse(readFileSync(checksFile, 'utf8')) as Array<{ status: string }>;
      const scenario = prefix + entry.replace(/-\d{4}-\d{2}-\d{2}T.*$/, '');
      results.set(scenario, !checks.some((check) => check.status === 'FAILURE' || check.status === 'WARNING'));
    } catch {
      collect(path, `${prefix}${entry}/`);
    }
  }
}
collect(output, '');
rmSync(output, { recursive: true, force: true });

for (const [scenario, passed] of [...results].sort(([left], [right]) => left.localeCompare(right))) {
  process.stdout.write(`${passed ? 'pass' : 'FAIL'}  ${scenario}\n`);
}
const passed = [...results.values()].filter(Boolean).length;
process.stdout.write(`\n${passed} of ${results.size} client scenarios passed\n`);
if (run.status !== 0) process.stdout.write(`\n${run.stdout.split('\n').filter((line) => /baseline|Unexpected|Stale|  [✗~] /i.test(line)).join('\n')}\n`);
process.exit(run.status ?? 1);
