/**
 * The shipped suite, as a user runs it: `npm run eval -- evals/demo.yml` in its own process, the
 * demo MCP server over stdio and the offline demo model (evals/demo-agent.yml). No key, no network.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { XMLValidator } from 'fast-xml-parser';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../support/mcp-servers.ts';

const run = promisify(execFile);

describe('the demo suite (evals/demo.yml)', () => {
  const folder = mkdtempSync(join(tmpdir(), 'eval-demo-'));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('passes against the offline demo model, every case twice', async () => {
    // Only what a shell would pass on; a developer's own model settings must not change the suite's model.
    const environment = { PATH: process.env['PATH'] ?? '', HOME: folder };
    const { stdout, stderr } = await run(process.execPath, ['functions/eval.ts', 'evals/demo.yml', '--repeat', '2', '--junit', join(folder, 'junit.xml'), '--json', join(folder, 'report.json')], { cwd: PROJECT_ROOT, env: environment, timeout: 120_000 });
    expect(stdout).toMatch(/^demo tools — evals\/demo-agent\.yml, model demo\/demo$/m);
    expect(stdout).toMatch(/^8\/8 cases passed, 16\/16 runs passed, in [\d.]+ s$/m);
    expect(stdout).not.toMatch(/^FAIL/m);
    expect(stderr.split('\n').filter((line) => line.startsWith('PASS '))).toHaveLength(16);
    const report = JSON.parse(readFileSync(join(folder, 'report.json'), 'utf8')) as { passed: boolean; configurations: Array<{ cases: Array<{ name: string; runs: Array<{ turns: Array<{ toolCalls: Array<{ name: string }> }> }> }> }> };
    expect(report.passed).toBe(true);
    const cancelled = report.configurations[0]!.cases.find((each) => each.name === 'cancels an order once approved')!;
    expect(cancelled.runs[0]!.turns[0]!.toolCalls.map((call) => call.name)).toEqual(['batchCancelOrdersByOrderNo']);
    const junit = readFileSync(join(folder, 'junit.xml'), 'utf8');
    expect(XMLValidator.validate(junit)).toBe(true);
    expect(junit).toContain('<testsuites name="demo tools" tests="8" failures="0"');
  });

  it('exits 2 and says what to fix when the suite is wrong', async () => {
    const failure = await run(process.execPath, ['functions/eval.ts', 'evals/demo.yml', '--repeat', 'twice'], { cwd: PROJECT_ROOT, env: { PATH: process.env['PATH'] ?? '' } }).catch((error: { code: number; stderr: string }) => error);
    expect(failure).toMatchObject({ code: 2, stderr: expect.stringContaining('eval: --repeat takes a whole number from 1, not "twice"') });
  });
});
