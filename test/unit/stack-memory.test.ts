/** The stack warns when memory is on without authentication: every caller then shares one memory. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { memoryIsOn } from '../../infra/memory.ts';
import { stackFor } from '../support/stack-template.ts';
import { temporaryFolder } from '../support/temporary-folder.ts';

const folder = temporaryFolder('stack-memory-');
const file = (name: string, text: string) => {
  const path = join(folder, name);
  writeFileSync(path, text);
  return path;
};
const withMemory = file('memory.yml', 'memory: { maxNotes: 50 }\n');

describe('McpAgentStack with memory', () => {
  it.each([
    ['memory: true', true],
    ['memory: { maxNotes: 10 }', true],
    ['memory: "${MEMORY}"', true],
    ['memory: false', false],
    ['memory: { enabled: false }', false],
    ['maxRounds: 3', false],
  ])('reads %s as memory %s', (text, on) => {
    expect(memoryIsOn(file(`case-${String(on)}-${text.length}.yml`, `${text}\n`))).toBe(on);
  });

  it('warns that every caller shares one memory under authMode none, and only then', () => {
    const shared = Match.stringLikeRegexp('share one memory');
    Annotations.fromStack(stackFor({ authMode: 'none', agentConfig: withMemory })).hasWarning('/Agent', shared);
    expect(Annotations.fromStack(stackFor({ authMode: 'iam', agentConfig: withMemory })).findWarning('*', shared)).toEqual([]);
    expect(Annotations.fromStack(stackFor({ authMode: 'none' })).findWarning('*', shared)).toEqual([]);
  });
});
