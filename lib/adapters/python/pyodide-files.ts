import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Where a sandbox finds its worker script and Pyodide's files (pyodide.asm.wasm, python_stdlib.zip, …). */
export interface PyodideFiles {
  worker: URL;
  /** The folder of Pyodide's files, as a path ending in a slash. */
  indexURL: string;
}

/**
 * The files of this installation. From the sources (npm start, the tests) the worker is
 * python-worker.ts and Pyodide is the `pyodide` package in node_modules; in a Lambda bundle both
 * are copied beside the function's code (infra/bundling.ts: python-worker.mjs and pyodide/),
 * since a bundle has no node_modules.
 */
export function pyodideFiles(): PyodideFiles {
  const bundledWorker = new URL('./python-worker.mjs', import.meta.url);
  if (existsSync(bundledWorker)) return { worker: bundledWorker, indexURL: fileURLToPath(new URL('./pyodide/', import.meta.url)) };
  const packageEntry = fileURLToPath(import.meta.resolve('pyodide'));
  return { worker: new URL('./python-worker.ts', import.meta.url), indexURL: packageEntry.slice(0, packageEntry.lastIndexOf('/') + 1) };
}
