import { readdirSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPythonSandbox, runPython } from '../../lib/adapters/python/sandbox.ts';
import type { CodeSandbox, PythonRun } from '../../lib/core/ports/code-sandbox.ts';
import { pythonWheel } from '../support/python-wheel.ts';
import { temporaryFolder } from '../support/temporary-folder.ts';

/**
 * The Python sandbox with real Pyodide workers: each run loads CPython in WebAssembly in a worker
 * thread (seconds on a loaded machine), so the runs are few and share one sandbox, which keeps
 * the next worker loading while a run goes on.
 */
const MB = 1024 * 1024;
const LIMITS = { timeoutMs: 20_000, maxMemoryBytes: 256 * MB } satisfies Partial<PythonRun>;
const SALES = 'region,amount\nnorth,12.5\nsouth,30\nnorth,7.5\n';

/** Threads of this process (Linux): a worker that was not ended stays one of them. */
const threads = () => readdirSync('/proc/self/task').length;

let sandbox: CodeSandbox;
let threadsBefore: number;

beforeAll(async () => {
  // libuv starts its four threads on the first asynchronous file read: they are there for good.
  await readFile(import.meta.filename);
  threadsBefore = threads();
  sandbox = createPythonSandbox();
});

afterAll(async () => {
  await sandbox.close();
});

describe('createPythonSandbox', () => {
  it('computes from a file given to it, and returns the files the code wrote', async () => {
    // Act
    const result = await sandbox.runPython({
      ...LIMITS,
      code: [
        'import csv, json',
        'rows = list(csv.DictReader(open("sales.csv")))',
        'total = sum(float(row["amount"]) for row in rows)',
        'print(f"total {total}")',
        'json.dump({"north": sum(float(r["amount"]) for r in rows if r["region"] == "north")}, open("north.json", "w"))',
      ].join('\n'),
      files: [{ name: 'sales.csv', content: SALES }],
    });

    // Assess
    expect(result.error).toBeUndefined();
    expect(result.stdout).toBe('total 50.0\n');
    // The input file is unchanged, so only the new one comes back.
    expect(result.files.map((file) => [file.name, new TextDecoder().decode(file.content)])).toEqual([['north.json', '{"north": 20.0}']]);
  });

  it('refuses the host: its files, the network, the JavaScript side and the environment, each with an error the code can read', async () => {
    // Prepare
    process.env.PYTHON_SANDBOX_TEST_SECRET = 'not for the code';
    const code = [
      'import os, sys',
      'def attempt(what, action):',
      '    try:',
      '        action()',
      '        print(what, "allowed")',
      '    except Exception as error:',
      '        print(what, type(error).__name__)',
      'def socket_connection():',
      '    import socket',
      '    socket.create_connection(("127.0.0.1", 80), timeout=1)',
      'def http_request():',
      '    import urllib.request',
      '    urllib.request.urlopen("http://127.0.0.1:9/")',
      'def javascript():',
      '    sys.meta_path.pop(0)  # the refusal of the runner; the modules are gone all the same',
      '    import js',
      'attempt("socket", socket_connection)',
      'attempt("http", http_request)',
      'attempt("javascript", javascript)',
      'print("secret" if "not for the code" in repr(os.environ) else "no secret")',
      'open("/etc/passwd").read()',
    ].join('\n');

    // Act
    const result = await sandbox.runPython({ ...LIMITS, code });
    delete process.env.PYTHON_SANDBOX_TEST_SECRET;

    // Assess
    expect(result.stdout).toBe('socket PermissionError\nhttp URLError\njavascript ModuleNotFoundError\nno secret\n');
    // The uncaught error is the run's error, as a traceback of the code's own lines.
    expect(result.error).toMatch(/^Traceback \(most recent call last\):\n {2}File "<code>", line 21, in <module>\n.*FileNotFoundError: \[Errno 44\] No such file or directory: '\/etc\/passwd'\n$/s);
  });

  it('stops an endless loop at its time limit, and ends its worker', async () => {
    // Act
    const result = await sandbox.runPython({ ...LIMITS, timeoutMs: 1_000, code: 'while True:\n    pass' });

    // Assess
    expect(result.error).toMatch(/did not finish within 1 s/);
    // Node's timers run on the event loop's millisecond clock, which can be up to 1 ms behind
    // performance.now(): a limit of 1,000 ms measures from 999 ms (999.99 once on a loaded machine).
    expect(result.durationMs).toBeGreaterThanOrEqual(999);
  });

  it('stops a memory bomb at its memory limit with MemoryError', async () => {
    // Act
    const result = await sandbox.runPython({ ...LIMITS, maxMemoryBytes: 64 * MB, code: 'blocks = []\nwhile True:\n    blocks.append(bytearray(1_000_000))' });

    // Assess
    expect(result.error).toMatch(/MemoryError/);
  });

  it('keeps no state from one run to the next, and leaves no thread behind once closed', async () => {
    // Prepare
    await sandbox.runPython({ ...LIMITS, code: 'open("left.txt", "w").write("from before")' });

    // Act
    const result = await sandbox.runPython({ ...LIMITS, code: 'import os\nprint(sorted(os.listdir(".")))' });
    await sandbox.close();

    // Assess
    expect(result.stdout).toBe('[]\n');
    expect(threads()).toBe(threadsBefore);
  });
});

describe('runPython with packages', () => {
  it('imports a package an operator added as a wheel file', async () => {
    // Prepare
    const wheel = pythonWheel('sandbox_greeting', '1.0.0', { 'sandbox_greeting/__init__.py': 'def greet(name):\n    return f"hello {name}"\n' });
    const file = path.join(temporaryFolder('wheel-'), wheel.fileName);
    writeFileSync(file, wheel.bytes);

    // Act
    const result = await runPython({ ...LIMITS, code: 'import sandbox_greeting\nprint(sandbox_greeting.greet("operator"))' }, { packages: [file] });

    // Assess
    expect(result).toMatchObject({ stdout: 'hello operator\n', stderr: '' });
    expect(result.error).toBeUndefined();
  });
});
