/**
 * The MCP client conformance suite (@modelcontextprotocol/conformance) against the gateway
 * (test/conformance/client.ts): each scenario starts its own server on localhost, runs the client
 * against it, and judges what the client did on the wire. This is the fast subset of every
 * scenario that passes; `npm run conformance` runs all 26, and the auth/* scenarios (OAuth) run in
 * mcp-oauth-conformance.test.ts.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = `${PROJECT_ROOT}node_modules/@modelcontextprotocol/conformance/dist/index.js`;
const CLIENT = `${process.execPath} ${PROJECT_ROOT}test/conformance/client.ts`;

const PASSING = ['initialize', 'tools_call', 'sse-retry', 'elicitation-sep1034-client-defaults'];

describe('the MCP gateway under the MCP client conformance suite', () => {
  it('lists none of these scenarios in the baseline of npm run conformance (a stale entry fails the run)', () => {
    const baseline = parse(readFileSync(`${PROJECT_ROOT}test/conformance/expected-failures.yml`, 'utf8')) as { client: string[] };
    expect(baseline.client.filter((scenario) => PASSING.includes(scenario))).toEqual([]);
  });

  it.each(PASSING)('passes the %s scenario', async (scenario) => {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [CLI, 'client', '--command', CLIENT, '--scenario', scenario], {
      cwd: PROJECT_ROOT,
      timeout: 60_000,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
    });
    // The suite reports on stderr and stdout alike, depending on the line.
    const report = stdout + stderr;
    expect(report).toMatch(/Passed: (\d+)\/\1, 0 failed/);
    expect(report).toContain('OVERALL: PASSED');
  }, 90_000);
});
