/**
 * The port of a sandbox that runs a model's Python (the code interpreter): code and files in,
 * output and the files it wrote out. The agent sees only this; lib/adapters/python runs it in
 * Pyodide (CPython compiled to WebAssembly) in a worker thread.
 */

/** A file given to the code, or written by it: a plain name (no folders) and its bytes or text. */
export interface SandboxFile {
  name: string;
  content: Uint8Array | string;
}

export interface PythonRun {
  code: string;
  /** Put in the code's working folder before it starts, readable as open(name). */
  files?: readonly SandboxFile[];
  /** The code's own running time (the interpreter's start is bounded apart); past it the run is stopped. */
  timeoutMs: number;
  /** The Python heap (the WebAssembly memory): past it allocations fail with MemoryError. */
  maxMemoryBytes: number;
  /** Stops the run (the turn's deadline, the call's timeout). */
  signal?: AbortSignal;
}

export interface PythonResult {
  stdout: string;
  stderr: string;
  /** Why the code did not finish: its traceback, a timeout, the memory limit. Absent when it finished. */
  error?: string;
  /** Files in the working folder that the code created or changed, top level only. */
  files: { name: string; content: Uint8Array }[];
  /** How long the code ran, without the interpreter's start. */
  durationMs: number;
}

export interface CodeSandbox {
  runPython(run: PythonRun): Promise<PythonResult>;
  /** Ends the interpreters kept warm. */
  close(): Promise<void>;
}

/**
 * The files of one conversation as the code interpreter reads and writes them: the conversation's
 * file store, or an in-memory map in tests. Names are plain file names.
 */
export interface CodeFiles {
  list(): Promise<string[]>;
  read(name: string): Promise<Uint8Array | string>;
  write(name: string, content: Uint8Array): Promise<void>;
}

/** The files of the conversation a turn belongs to. */
export type CodeFilesFor = (conversation: { conversationId: string; owner: string | undefined }) => CodeFiles;
