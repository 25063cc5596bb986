/**
 * The code interpreter as a Lambda function carries it: the after-bundling commands of a stack
 * whose agent.yml turns codeInterpreter on (infra/bundling.ts) run for real into a folder, beside
 * the sandbox compiled as the functions compile it; then a fresh Node process, with no
 * node_modules anywhere above the folder, runs Python with what is in it alone.
 */
import { execFile, execSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLED_PYODIDE, BUNDLED_PYTHON_WORKER, PROJECT_ROOT, PYODIDE_FILES, agentConfigPath, functionBuildOptions, functionBundling } from '../../infra/bundling.ts';

const run = promisify(execFile);
let folder: string;

beforeAll(async () => {
  folder = mkdtempSync(path.join(tmpdir(), 'bundle-python-'));
  const hooks = functionBundling(agentConfigPath('agent.yml'), { modelProvider: 'openai', ssmClient: false, codeInterpreter: true }).commandHooks!;
  for (const command of hooks.afterBundling(PROJECT_ROOT, folder)) execSync(command, { stdio: 'pipe' });
  await build(functionBuildOptions(path.join(PROJECT_ROOT, 'lib/adapters/python/sandbox.ts'), path.join(folder, 'index.mjs')));
}, 120_000);

afterAll(() => {
  if (folder) rmSync(folder, { recursive: true, force: true });
});

describe('the code interpreter in a function bundle', () => {
  it('puts the worker and Pyodide beside the function', () => {
    expect(existsSync(path.join(folder, BUNDLED_PYTHON_WORKER))).toBe(true);
    for (const file of PYODIDE_FILES) expect(statSync(path.join(folder, BUNDLED_PYODIDE, file)).size).toBeGreaterThan(0);
  });

  it('runs Python from the bundle alone, without node_modules', async () => {
    // Prepare
    const script = path.join(folder, 'run.mjs');
    writeFileSync(script, [
      "import { runPython } from './index.mjs';",
      "const result = await runPython({ code: 'import json\\nprint(json.dumps({\"sum\": sum(range(10))}))', timeoutMs: 30000, maxMemoryBytes: 128 * 1024 * 1024 });",
      'console.log(JSON.stringify(result));',
    ].join('\n'));

    // Act
    const { stdout } = await run(process.execPath, [script], { cwd: folder, timeout: 120_000 });

    // Assess
    expect(JSON.parse(stdout)).toMatchObject({ stdout: '{"sum": 45}\n', stderr: '', files: [] });
  }, 150_000);
});
