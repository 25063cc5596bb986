import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { brokenLinks, documentationFiles } from '../support/docs-links.ts';
import { headingAnchors } from '../support/markdown.ts';

describe('the documentation (README.md and docs/*.md)', () => {
  it('has pages beside the README', () => {
    expect(documentationFiles()).toContain('docs/http-api.md');
  });

  it('has no relative link or anchor that leads nowhere', () => {
    expect(brokenLinks()).toEqual([]);
  });
});

describe('brokenLinks', () => {
  const root = mkdtempSync(join(tmpdir(), 'docs-links-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(join(root, 'docs'));
  writeFileSync(join(root, 'docs', 'picture.png'), '');
  writeFileSync(
    join(root, 'docs', 'page.md'),
    ['# A page', '', '[Back](../README.md)', '', '## Who can reach `npm start`: `HOST`', '', '![A picture](picture.png)', ''].join('\n'),
  );
  writeFileSync(
    join(root, 'README.md'),
    [
      '# Title',
      '',
      '[a page](docs/page.md), [its section](docs/page.md#who-can-reach-npm-start-host), [here](#title)',
      '[gone](docs/gone.md), [no such section](docs/page.md#nowhere), [not here](#elsewhere)',
      '',
      '```sh',
      '# a shell comment, not a heading; [not a link](nowhere.md)',
      '```',
      '`[code, not a link](nowhere.md)`',
      '',
    ].join('\n'),
  );

  it('reports a missing file, a missing heading in another file, and one in its own', () => {
    expect(brokenLinks(root)).toEqual([
      { file: 'README.md', line: 4, target: 'docs/gone.md', problem: 'docs/gone.md does not exist' },
      { file: 'README.md', line: 4, target: 'docs/page.md#nowhere', problem: 'docs/page.md has no heading with the id "nowhere"' },
      { file: 'README.md', line: 4, target: '#elsewhere', problem: 'README.md has no heading with the id "elsewhere"' },
    ]);
  });
});

describe('headingAnchors', () => {
  it('gives headings GitHub ids, numbering repeats, and skips code blocks', () => {
    const markdown = [
      '## Configuration: `agent.yml`',
      '### Long conversations: `history.strategy: summarize`',
      '## OpenAI-compatible API (`/v1`)',
      '## Tests',
      '## Tests',
      '```text',
      '## Todo list',
      '```',
    ].join('\n');
    expect([...headingAnchors(markdown)]).toEqual([
      'configuration-agentyml',
      'long-conversations-historystrategy-summarize',
      'openai-compatible-api-v1',
      'tests',
      'tests-1',
    ]);
  });
});
