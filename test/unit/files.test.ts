/**
 * The rules of a conversation's files that need no store: agent.yml `files`, the names a file may
 * have, and where buildAgent keeps files (S3 with FILES_BUCKET, else the local data folder, never
 * nowhere in a Lambda function).
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createFolderFileStore } from '../../lib/adapters/folder/file-store.ts';
import { configuredExtensions } from '../../lib/extensions/configured.ts';
import { configuredFileStore } from '../../lib/configured-file-store.ts';
import { createJsonLogger } from '../../lib/core/logger.ts';
import { ConfigError } from '../../lib/core/errors.ts';
import { contentTypeOf, fileNameProblem } from '../../lib/core/ports/file-store.ts';
import { configFailure, parseAgentYml } from '../support/agent-yml.ts';

describe('agent.yml files', () => {
  it.each([
    ['', { enabled: false }],
    ['files: false', { enabled: false }],
    ['files: true', { enabled: true, maxBytes: 1_048_576, maxFiles: 50, maxReadChars: 20_000 }],
    ['files: { maxBytes: 1000, maxReadChars: 500 }', { enabled: true, maxBytes: 1000, maxFiles: 50, maxReadChars: 500 }],
    ['files: { enabled: false, maxFiles: 3 }', { enabled: false, maxFiles: 3 }],
  ])('reads %j', (text, expected) => {
    expect(parseAgentYml(text).files).toMatchObject(expected);
  });

  it.each([
    ['files: yes please', /files.*expected true, false, or settings \(maxBytes, maxFiles, maxReadChars\)/],
    ['files: { maxBytes: 10000000 }', /files\.maxBytes/],
    ['files: { maxFile: 3 }', /maxFile/],
  ])('refuses %j, naming the key', (text, message) => {
    expect(configFailure(text)).toMatch(message);
  });
});

describe('agent.yml reports', () => {
  it('reads reports: true with its defaults, and settings', () => {
    expect(parseAgentYml('').reports).toMatchObject({ enabled: false });
    expect(parseAgentYml('reports: true').reports).toEqual({ enabled: true, maxInputChars: 60_000 });
    expect(parseAgentYml('reports: { maxInputChars: 1000 }').reports).toEqual({ enabled: true, maxInputChars: 1000 });
  });

  it('fails the start when reports are on without files, where no report could be saved', () => {
    const logger = createJsonLogger('error');
    expect(() => configuredExtensions(parseAgentYml('reports: true'), { logger })).toThrow(/reports is on in agent.yml, but files is off/);
    expect(configuredExtensions(parseAgentYml('reports: true\nfiles: true'), { logger, files: createFolderFileStore({ root: tmpdir() }) }).find((extension) => extension.name === 'files')?.tools?.map((tool) => tool.definition.name)).toEqual(['file_tool', 'report_tool']);
  });
});

describe('fileNameProblem', () => {
  it.each(['report.md', 'weather report.md', '报告 2025.csv', 'v1.2.final.JSON', 'a%20b.txt', 'page.html', `${'a'.repeat(97)}.md`])('accepts %j', (name) => {
    expect(fileNameProblem(name)).toBeUndefined();
  });

  it.each([
    ['', /empty/],
    ['../report.md', /path/],
    ['notes/report.md', /path/],
    ['C:\\report.md', /path/],
    ['a:b.md', /: \* \?/],
    ['bell\u0007.md', /control/],
    ['line\nbreak.md', /control/],
    ['right\u202eto-left.md', /control/],
    [' report.md', /space/],
    ['.hidden.md', /starts with "\."/],
    ['chart.png', /text format's extension/],
    ['README', /text format's extension/],
    [`${'a'.repeat(98)}.md`, /more than 100 characters/],
  ])('refuses %j', (name, problem) => {
    expect(fileNameProblem(name)).toMatch(problem);
  });

  it('gives each text format its content type, UTF-8', () => {
    expect(contentTypeOf('a.MD')).toBe('text/markdown; charset=utf-8');
    expect(contentTypeOf('a.html')).toBe('text/html; charset=utf-8');
    expect(contentTypeOf('a.csv')).toBe('text/csv; charset=utf-8');
  });
});

describe('configuredFileStore', () => {
  it('refuses to start a Lambda function without FILES_BUCKET: its folder would not last', () => {
    expect(() => configuredFileStore({ AWS_LAMBDA_FUNCTION_NAME: 'stream' })).toThrow(ConfigError);
    expect(() => configuredFileStore({ AWS_LAMBDA_FUNCTION_NAME: 'stream' })).toThrow(/FILES_BUCKET is not set/);
  });

  it('keeps files under files/ of the local data folder in a local run (the bucket: test/integration/bundle-files.test.ts)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'configured-files-'));
    try {
      await configuredFileStore({ LOCAL_DATA_DIR: dataDir }).put({ conversationId: 'c-1' }, { name: 'a.md', description: '', content: 'x' });
      expect(readdirSync(join(dataDir, 'files', '-', 'c-1'))).toHaveLength(1);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
