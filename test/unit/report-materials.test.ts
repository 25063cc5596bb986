/** What report_tool's model call is given: files and tool results, newest first, within maxInputChars, each fenced so none can end its quote early. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createFolderFileStore } from '../../lib/adapters/folder/file-store.ts';
import { reportMaterials } from '../../lib/extensions/files/report-materials.ts';

const root = mkdtempSync(join(tmpdir(), 'report-materials-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('reportMaterials', () => {
  it('gives the newest file first, then the newest tool results, until maxChars, and says what was cut', async () => {
    // Prepare
    let now = Date.UTC(2025, 0, 1);
    const store = createFolderFileStore({ root, now: () => (now += 1000) });
    const key = { conversationId: 'c-1' };
    const older = await store.put(key, { name: 'older.md', description: 'old', content: 'o'.repeat(50) });
    const newer = await store.put(key, { name: 'newer.md', description: 'new', content: 'n'.repeat(30) });
    const report = await store.put(key, { name: 'report.md', description: '', content: 'the report itself' });

    // Act
    const text = await reportMaterials(store, key, { files: [older, newer, report], results: [{ name: 'first', text: 'r1' }, { name: 'second', text: 'r2' }], maxChars: 60, exclude: 'report.md' }, {});

    // Assess: 30 of newer, 30 of older (cut), no room for results; the report being written is not its own material.
    expect(text).toBe(`### File "newer.md" (new)\n\`\`\`\n${'n'.repeat(30)}\n\`\`\`\n\n### File "older.md" (old)\n\`\`\`\n${'o'.repeat(30)}\n…[cut: 20 more characters not given]\n\`\`\`\n\n(Older material did not fit and is left out.)`);
  });

  it('fences a text with a longer run of backticks than it holds, and says when there is nothing', async () => {
    const store = createFolderFileStore({ root });
    const text = await reportMaterials(store, { conversationId: 'c-2' }, { files: [], results: [{ name: 'tool', text: 'a ```` b' }], maxChars: 1000, exclude: '' }, {});
    expect(text).toBe('### Result of the tool tool\n`````\na ```` b\n`````');
    expect(await reportMaterials(store, { conversationId: 'c-3' }, { files: [], results: [], maxChars: 1000, exclude: '' }, {})).toBe('The conversation has no files or tool results yet: write from the task alone.');
  });
});
