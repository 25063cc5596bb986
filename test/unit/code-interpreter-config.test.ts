import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { usesCodeInterpreter } from '../../infra/code-interpreter.ts';
import { configuredExtensions } from '../../lib/extensions/configured.ts';
import { parseConfig } from '../../lib/config/load.ts';
import { silentLogger } from '../../lib/core/logger.ts';
import { temporaryFolder } from '../support/temporary-folder.ts';

const parse = (yaml: string) => parseConfig(yaml, { source: 'test.yml', environment: {} });

describe('codeInterpreter in agent.yml', () => {
  it.each([
    ['', { enabled: false, timeoutSeconds: 20, maxMemoryMb: 256, packages: [] }],
    ['codeInterpreter: false', { enabled: false, timeoutSeconds: 20, maxMemoryMb: 256, packages: [] }],
    ['codeInterpreter: true', { enabled: true, timeoutSeconds: 20, maxMemoryMb: 256, packages: [] }],
    ['codeInterpreter: { timeoutSeconds: 5, maxMemoryMb: 128 }', { enabled: true, timeoutSeconds: 5, maxMemoryMb: 128, packages: [] }],
    ['codeInterpreter: { packages: [wheels/tabulate-0.9.0-py3-none-any.whl] }', { enabled: true, timeoutSeconds: 20, maxMemoryMb: 256, packages: ['wheels/tabulate-0.9.0-py3-none-any.whl'] }],
  ])('%j reads as %j', (yaml, expected) => {
    expect(parse(yaml).codeInterpreter).toEqual(expected);
  });

  it.each([
    ['codeInterpreter: yes please', /expected true, false, or settings/],
    ['codeInterpreter: { maxMemoryMb: 8 }', /maxMemoryMb/],
    ['codeInterpreter: { timeout: 5 }', /timeout/],
  ])('refuses %j', (yaml, message) => {
    expect(() => parse(yaml)).toThrow(message);
  });

  it('adds the code_interpreter tool, and refuses to start without a sandbox to run it', () => {
    const config = parse('codeInterpreter: true');
    const sandbox = { runPython: async () => ({ stdout: '', stderr: '', files: [], durationMs: 0 }), close: async () => {} };
    const tools = configuredExtensions(config, { logger: silentLogger, codeSandbox: sandbox }).flatMap((extension) => extension.tools ?? []);
    expect(tools.map((tool) => tool.definition.name)).toContain('code_interpreter');
    expect(() => configuredExtensions(config, { logger: silentLogger })).toThrow(/codeInterpreter is on in agent.yml, but the agent has no Python sandbox/);
  });
});

describe('usesCodeInterpreter', () => {
  it.each([
    ['codeInterpreter: true', true],
    ['codeInterpreter: { maxMemoryMb: 512 }', true],
    ['codeInterpreter: { enabled: false }', false],
    ['codeInterpreter: false', false],
    ['maxRounds: 4', false],
  ])('%j: %s', (yaml, expected) => {
    const file = path.join(temporaryFolder('code-interpreter-'), 'agent.yml');
    writeFileSync(file, yaml);
    expect(usesCodeInterpreter(file)).toBe(expected);
  });
});
