import { describe, expect, it } from 'vitest';
import { createPythonSandbox } from '../../lib/adapters/python/sandbox.ts';

describe('createPythonSandbox', () => {
  it.each(['../outside.csv', 'folder/data.csv', 'back\\slash.csv', '..', 'nul\0.csv'])('refuses the file name %j before any worker starts', async (name) => {
    const sandbox = createPythonSandbox({ keepWarm: false });
    await expect(sandbox.runPython({ code: 'pass', files: [{ name, content: 'x' }], timeoutMs: 1_000, maxMemoryBytes: 64 * 1024 * 1024 })).rejects.toThrow(/must have a plain name, without folders/);
    await sandbox.close();
  });
});
