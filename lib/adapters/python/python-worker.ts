/**
 * The worker thread that runs one piece of a model's Python, in Pyodide (CPython compiled to
 * WebAssembly), and is then terminated: each run gets a fresh interpreter, so nothing of one
 * conversation is left for the next.
 *
 *   start ─► cap the WebAssembly memory ─► load Pyodide ─► close the doors ─► "ready"
 *         ─► "run" (files in, code, files out) ─► "done" ─► terminated by the parent
 *
 * What keeps the code in (each layer assumes the others may fail):
 * - no host files: Python sees only Pyodide's in-memory file system; the node file system type
 *   (NODEFS) and Pyodide's mount functions are removed before any code runs;
 * - no network: sockets (Emscripten's SOCKFS, which in Node opens real connections) refuse to be
 *   created, and `fetch`, `WebSocket` and Node's modules are gone from the worker's globals;
 * - no way back into JavaScript's powers: Python's `js` module is an empty object, not the
 *   worker's globals, and code generation from strings (`Function`, `eval`) throws, so a
 *   JavaScript object reached from Python cannot be turned into new JavaScript;
 * - no secrets: the parent starts the worker with an empty environment;
 * - bounded: the WebAssembly memory cannot grow past the limit (Python then raises MemoryError),
 *   the worker's own JavaScript heap has resourceLimits, and the parent terminates it on timeout.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { loadPyodide, type PyodideAPI } from 'pyodide';
import { RUNNER_SOURCE } from './runner-source.ts';

interface WorkerSettings {
  /** The folder of pyodide.asm.wasm, python_stdlib.zip and the rest, ending in a slash. */
  indexURL: string;
  maxMemoryBytes: number;
  /** Characters of stdout and of stderr kept; the rest is counted, not kept. */
  maxOutputChars: number;
  /** Wheels (file paths) or names in Pyodide's lock file, found in indexURL: loaded before the doors close. */
  packages: string[];
}

interface RunMessage {
  type: 'run';
  code: string;
  files: { name: string; content: Uint8Array | string }[];
}

const settings = workerData as WorkerSettings;
const port = parentPort!;

capMemory(settings.maxMemoryBytes);
const stdout = boundedText(settings.maxOutputChars);
const stderr = boundedText(settings.maxOutputChars);
const pyodide = await loadPyodide({
  indexURL: settings.indexURL,
  // Python's `js` module: an empty object instead of the worker's globals.
  jsglobals: Object.create(null),
  env: { HOME: '/home/pyodide' },
  stdout: stdout.line,
  stderr: stderr.line,
});
if (settings.packages.length > 0) await loadPackages(pyodide, settings.packages);
// Made before the doors close, while Pyodide's own Python helpers still work as they do unconfined.
const runner = pyodide.runPython(RUNNER_SOURCE) as (code: string) => { toJs(): [string | undefined, string[]] };
closeDoors(pyodide);
port.once('message', (message: RunMessage) => port.postMessage(run(message)));
port.postMessage({ type: 'ready' });

function run(message: RunMessage) {
  const started = performance.now();
  const home = '/home/pyodide';
  let error: string | undefined;
  let written: string[] = [];
  try {
    for (const file of message.files) pyodide.FS.writeFile(`${home}/${file.name}`, file.content);
    [error, written] = runner(message.code).toJs();
  } catch (failure) {
    // The runner catches the code's own exceptions; this is Pyodide failing (out of memory in its glue, say).
    error = `the interpreter failed: ${failure instanceof Error ? failure.message : String(failure)}`;
  }
  return {
    type: 'done',
    stdout: stdout.text(),
    stderr: stderr.text(),
    ...(error ? { error } : {}),
    files: written.map((name) => ({ name, content: pyodide.FS.readFile(`${home}/${name}`) as Uint8Array })),
    durationMs: performance.now() - started,
  };
}

/** The operator's packages (docs/code-interpreter.md): a worker that cannot load them all fails to start. */
async function loadPackages(loaded: PyodideAPI, packages: string[]): Promise<void> {
  const failures: string[] = [];
  await loaded.loadPackage(packages, { messageCallback: () => undefined, errorCallback: (message: string) => failures.push(message), checkIntegrity: true });
  if (failures.length > 0) throw new Error(`the Python packages could not be loaded: ${failures.join('; ')}`);
}

/**
 * Pyodide's heap is one WebAssembly memory that grows when malloc needs more: refusing to grow
 * past the limit makes the allocation fail, which Python raises as MemoryError.
 */
function capMemory(maxBytes: number): void {
  const PAGE = 65_536;
  // The project's TypeScript settings have no WebAssembly types: the little used here.
  type Memory = { buffer: ArrayBuffer; grow(pages: number): number };
  const prototype = (globalThis as unknown as { WebAssembly: { Memory: { prototype: Memory } } }).WebAssembly.Memory.prototype;
  const grow = prototype.grow;
  prototype.grow = function capped(this: Memory, pages: number) {
    if (this.buffer.byteLength + pages * PAGE > maxBytes) throw new RangeError(`the Python memory limit (${maxBytes} bytes) is reached`);
    return grow.call(this, pages);
  };
}

/** stdout or stderr as Pyodide hands it over, one line at a time, kept up to a number of characters. */
function boundedText(maxChars: number) {
  let kept = '';
  let dropped = 0;
  return {
    line: (line: string) => {
      const text = `${line}\n`;
      const room = maxChars - kept.length;
      if (room >= text.length) kept += text;
      else {
        kept += text.slice(0, Math.max(0, room));
        dropped += text.length - Math.max(0, room);
      }
    },
    text: () => (dropped === 0 ? kept : `${kept}\n[… ${dropped} more characters not kept]\n`),
  };
}

/** Takes away every way out that Pyodide leaves open in Node, once it has loaded what it needs. */
function closeDoors(loaded: PyodideAPI): void {
  const module = (loaded as unknown as { _module: EmscriptenInternals })._module;
  const refuse = () => {
    throw new module.FS.ErrnoError(PERMISSION_DENIED);
  };
  // Sockets: Emscripten's SOCKFS connects through the `ws` package in Node, NODESOCKFS through net.
  module.SOCKFS.createSocket = refuse;
  if (module.SOCKFS.websocket_sock_ops) module.SOCKFS.websocket_sock_ops.connect = refuse;
  // The modules that hand Python the JavaScript side: `js` (an empty object already) and
  // `pyodide_js` (Pyodide's API, whose internals read host files).
  loaded.unregisterJsModule('js');
  loaded.unregisterJsModule('pyodide_js');
  // Host files: the Node file system type and the functions that mount folders of the host.
  delete module.FS.filesystems.NODEFS;
  delete module.FS.filesystems.NODESOCKFS;
  delete module.NODEFS;
  for (const name of ['mountNodeFS', 'mountNativeFS', 'loadPackage', 'loadPackagesFromImports', 'setStdin', 'setStdout', 'setStderr']) {
    Object.defineProperty(loaded, name, { value: undefined, configurable: false, writable: false });
  }
  // Globals that reach the host: Node's modules (Pyodide leaves a `require` shim holding fs and
  // child_process), the process object, and the network.
  for (const name of ['require', 'process', 'fetch', 'WebSocket', 'EventSource', 'XMLHttpRequest', 'Buffer', 'global', 'module', 'exports']) {
    Reflect.deleteProperty(globalThis, name);
  }
  // New JavaScript from strings: every function's `constructor` is one of these four.
  const noCode = function noCodeFromStrings() {
    throw new EvalError('code generation from strings is disabled in the sandbox');
  };
  const functionKinds = [function () {}, async function () {}, function* () {}, async function* () {}];
  for (const kind of functionKinds) Object.defineProperty(Object.getPrototypeOf(kind), 'constructor', { value: noCode, configurable: false, writable: false });
  Object.defineProperty(globalThis, 'eval', { value: noCode, configurable: false, writable: false });
  Object.defineProperty(globalThis, 'Function', { value: noCode, configurable: false, writable: false });
}

/** Emscripten's errno for "permission denied" (EACCES), as Python's PermissionError. */
const PERMISSION_DENIED = 2;

interface EmscriptenInternals {
  FS: { ErrnoError: new (errno: number) => Error; filesystems: Record<string, unknown> };
  SOCKFS: { createSocket: unknown; websocket_sock_ops?: { connect: unknown } };
  NODEFS?: unknown;
}
