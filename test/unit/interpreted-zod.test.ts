/**
 * The functions' zod parses without generating code (functions/interpreted-zod.ts): on a cold
 * start nearly every parse is the first with its schema, and compiling a parser for each cost more
 * than interpreting. zod decides per schema when the schema is made, so the setting is each entry's
 * first import, before the MCP SDK's schemas are made.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../infra/bundling.ts';

/** How many functions zod generated while making and using one object schema, in a fresh process. */
async function generatedFunctions(setting: boolean): Promise<number> {
  const script = `
    ${setting ? `await import(${JSON.stringify(path.join(PROJECT_ROOT, 'functions/interpreted-zod.ts'))});` : ''}
    const z = await import('zod/v4');
    let generated = 0;
    const Original = globalThis.Function;
    globalThis.Function = new Proxy(Original, { construct(target, args) { generated += 1; return Reflect.construct(target, args); } });
    const schema = z.object({ jsonrpc: z.literal('2.0'), id: z.number(), result: z.object({ content: z.array(z.object({ type: z.string(), text: z.string() })) }) });
    schema.parse({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: '42' }] } });
    process.stdout.write(String(generated));`;
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '--eval', script], { cwd: PROJECT_ROOT, timeout: 60_000 });
  return Number(stdout);
}

describe('zod in the functions', () => {
  it('parses without generating code once the setting is imported (and generates it without)', async () => {
    const [withSetting, without] = await Promise.all([generatedFunctions(true), generatedFunctions(false)]);

    expect(withSetting).toBe(0);
    expect(without).toBeGreaterThan(0);
  }, 90_000);

  it('is set by the first import of every function entry', () => {
    for (const entry of ['functions/stream.ts', 'functions/worker.ts', 'functions/health-and-fallbacks.ts']) {
      const firstImport = readFileSync(path.join(PROJECT_ROOT, entry), 'utf8').split('\n').find((line) => line.startsWith('import '));
      expect(firstImport, entry).toBe("import './interpreted-zod.ts';");
    }
  });
});
