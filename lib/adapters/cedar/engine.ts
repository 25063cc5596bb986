/**
 * Cedar's engine, compiled to WebAssembly (@cedar-policy/cedar-wasm), loaded once per process. The
 * package's `web` build is used because it takes the WebAssembly bytes from us: its `nodejs` build
 * reads them from beside its own file, which a Lambda bundle does not have. From the sources the
 * bytes are the package's; in a Lambda bundle they are copied beside the function's code
 * (infra/bundling.ts), as the code interpreter's Pyodide is.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as cedar from '@cedar-policy/cedar-wasm/web';

export type CedarEngine = typeof cedar;

/** The WebAssembly file's name, in the package and beside a bundle. */
export const CEDAR_WASM_FILE = 'cedar_wasm_bg.wasm';

let loaded = false;

/** The engine, its WebAssembly compiled on the first call (about 4.3 MB; tens of milliseconds). */
export function cedarEngine(): CedarEngine {
  if (!loaded) {
    cedar.initSync({ module: readFileSync(wasmPath()) });
    loaded = true;
  }
  return cedar;
}

function wasmPath(): string {
  const bundled = new URL(`./${CEDAR_WASM_FILE}`, import.meta.url);
  if (existsSync(bundled)) return fileURLToPath(bundled);
  return fileURLToPath(new URL(`./${CEDAR_WASM_FILE}`, import.meta.resolve('@cedar-policy/cedar-wasm/web')));
}
