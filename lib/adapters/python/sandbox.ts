import { Worker } from 'node:worker_threads';
import type { CodeSandbox, PythonResult, PythonRun } from '../../core/ports/code-sandbox.ts';
import { pyodideFiles, type PyodideFiles } from './pyodide-files.ts';

/**
 * Python in Pyodide, each run in a worker thread of its own that is terminated when the run ends
 * (python-worker.ts says what keeps the code in). Loading Pyodide takes a second or two, so one
 * worker is kept loaded and waiting (warm) for the next run with the same memory limit; a run
 * takes it and a new one starts loading behind it. A worker runs one piece of code only, so no
 * state passes from one run (or conversation) to the next.
 */
interface SandboxOptions {
  /** Where Pyodide and the worker are: found beside the bundle or in node_modules when not given. */
  files?: PyodideFiles;
  /** Keep a loaded worker waiting for the next run (default true). */
  keepWarm?: boolean;
  /** The longest Pyodide may take to load in a worker (default 60 s: a loaded machine is slow). */
  startTimeoutMs?: number;
  /** Characters of stdout, and of stderr, kept of one run (default 100,000). */
  maxOutputChars?: number;
  /** The worker's own JavaScript heap, apart from Python's memory (default 128 MB). */
  javascriptHeapMb?: number;
  /**
   * Python packages every run can import, loaded in each worker before the code may run: paths of
   * wheel files (.whl, pure Python or built for this Pyodide), or names of packages whose wheels
   * are in Pyodide's folder with its pyodide-lock.json. Each adds to every worker's start.
   */
  packages?: readonly string[];
}

/** The sandbox, and a way to have its warm worker ready before the first run (a cold start's init, a benchmark). */
export interface PythonSandbox extends CodeSandbox {
  /** Starts loading the worker for runs with this memory limit, and resolves once it is ready. */
  warmUp(maxMemoryBytes: number): Promise<void>;
}

export function createPythonSandbox(options: SandboxOptions = {}): PythonSandbox {
  const files = options.files ?? pyodideFiles();
  const keepWarm = options.keepWarm ?? true;
  const startTimeoutMs = options.startTimeoutMs ?? 60_000;
  let spare: LoadingWorker | undefined;
  let closed = false;

  const start = (maxMemoryBytes: number) =>
    loadWorker(files, { maxMemoryBytes, maxOutputChars: options.maxOutputChars ?? 100_000, javascriptHeapMb: options.javascriptHeapMb ?? 128, startTimeoutMs, packages: [...(options.packages ?? [])] });

  function take(maxMemoryBytes: number): LoadingWorker {
    const warm = spare?.maxMemoryBytes === maxMemoryBytes ? spare : undefined;
    if (spare && !warm) void spare.end();
    spare = keepWarm && !closed ? start(maxMemoryBytes) : undefined;
    return warm ?? start(maxMemoryBytes);
  }

  return {
    async runPython(run) {
      if (closed) throw new Error('the Python sandbox is closed');
      // Files go in the working folder by name: a path would put one elsewhere in the sandbox.
      const badName = run.files?.find((file) => !/^[^/\\\0]+$/.test(file.name) || file.name === '.' || file.name === '..');
      if (badName) throw new Error(`a file given to the sandbox must have a plain name, without folders: ${JSON.stringify(badName.name)}`);
      const worker = take(run.maxMemoryBytes);
      try {
        return await worker.run(run);
      } finally {
        await worker.end();
      }
    },
    async warmUp(maxMemoryBytes) {
      if (spare?.maxMemoryBytes !== maxMemoryBytes) {
        void spare?.end();
        spare = start(maxMemoryBytes);
      }
      await spare.ready;
    },
    async close() {
      closed = true;
      await spare?.end();
      spare = undefined;
    },
  };
}

/** One run in a fresh sandbox, with nothing kept warm: for scripts and tests of a single run. */
export async function runPython(run: PythonRun, options: Omit<SandboxOptions, 'keepWarm'> = {}): Promise<PythonResult> {
  const sandbox = createPythonSandbox({ ...options, keepWarm: false });
  try {
    return await sandbox.runPython(run);
  } finally {
    await sandbox.close();
  }
}

interface WorkerLimits {
  maxMemoryBytes: number;
  maxOutputChars: number;
  javascriptHeapMb: number;
  startTimeoutMs: number;
  packages: string[];
}

interface LoadingWorker {
  readonly maxMemoryBytes: number;
  /** Resolves once Pyodide is loaded in it; rejects if it failed to. */
  readonly ready: Promise<unknown>;
  run(run: PythonRun): Promise<PythonResult>;
  end(): Promise<void>;
}

type WorkerMessage = { type: 'ready' } | ({ type: 'done' } & PythonResult);

/** A worker that starts loading Pyodide at once; run() waits until it is ready, then runs the code. */
function loadWorker(files: PyodideFiles, limits: WorkerLimits): LoadingWorker {
  const worker = new Worker(files.worker, {
    workerData: { indexURL: files.indexURL, maxMemoryBytes: limits.maxMemoryBytes, maxOutputChars: limits.maxOutputChars, packages: limits.packages },
    // Not the parent's environment: it holds the function's AWS credentials and the model's key.
    env: {},
    resourceLimits: { maxOldGenerationSizeMb: limits.javascriptHeapMb, maxYoungGenerationSizeMb: 16 },
    stdout: true,
    stderr: true,
  });
  // What Pyodide itself prints (its loading notes) is not the code's output: dropped.
  worker.stdout.resume();
  worker.stderr.resume();
  // Nothing waits on a warm worker: it must not keep the process alive (npm start, the tests).
  worker.unref();
  let ended = false;
  let exit: Promise<unknown> | undefined;
  const failed = new Promise<never>((_, reject) => {
    worker.once('error', (error) => reject(workerFailure(error, limits.maxMemoryBytes)));
    worker.once('exit', (code) => {
      ended = true;
      reject(new Error(`the Python worker stopped (exit code ${code})`));
    });
  });
  failed.catch(() => undefined);
  const next = () => new Promise<WorkerMessage>((resolve) => worker.once('message', resolve));
  const ready = Promise.race([next(), failed]);
  ready.catch(() => undefined);

  return {
    maxMemoryBytes: limits.maxMemoryBytes,
    ready,
    async run(run) {
      worker.ref();
      await within(ready, limits.startTimeoutMs, () => new Error(`the Python interpreter did not start within ${Math.round(limits.startTimeoutMs / 1000)} s`), run.signal);
      const started = performance.now();
      const done = Promise.race([next(), failed]) as Promise<{ type: 'done' } & PythonResult>;
      worker.postMessage({ type: 'run', code: run.code, files: run.files ?? [] });
      try {
        const { type: _type, ...result } = await within(done, run.timeoutMs, () => new TimeoutError(run.timeoutMs), run.signal);
        return result;
      } catch (error) {
        // The code's own failures are in the result; these are the run's bounds and the worker's end.
        const message = error instanceof Error ? error.message : String(error);
        return { stdout: '', stderr: '', error: message, files: [], durationMs: performance.now() - started };
      }
    },
    async end() {
      if (ended) return;
      ended = true;
      exit ??= worker.terminate();
      await exit;
    },
  };
}

class TimeoutError extends Error {
  constructor(timeoutMs: number) {
    super(`the code did not finish within ${timeoutMs / 1000} s and was stopped (an endless loop, or too much work for the time allowed)`);
  }
}

/** The worker's errors as the model should read them: running out of memory says which limit. */
function workerFailure(error: Error, maxMemoryBytes: number): Error {
  if ((error as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY') {
    return new Error(`the code ran out of memory (the sandbox allows ${Math.round(maxMemoryBytes / 1024 / 1024)} MB) and was stopped`);
  }
  return new Error(`the Python worker failed: ${error.message}`);
}

/** The promise, unless the time runs out or the signal aborts first. */
function within<T>(promise: Promise<T>, timeoutMs: number, timedOut: () => Error, signal?: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(timedOut()), timeoutMs);
    const aborted = () => reject(new Error(`the run was stopped: ${signal?.reason instanceof Error ? signal.reason.message : 'aborted'}`));
    if (signal?.aborted) aborted();
    signal?.addEventListener('abort', aborted, { once: true });
    promise.then(resolve, reject).finally(() => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', aborted);
    });
  });
}
