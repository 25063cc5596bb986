import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { functionSubstitutes } from '../../infra/bundling.ts';
import { usesDeepSearch } from '../../infra/deep-search.ts';
import { parseConfig } from '../../lib/config/load.ts';
import { citedSources, subQueriesOf, type Source } from '../../lib/extensions/deep-search/prompts.ts';
import { searchResultsOf } from '../../lib/extensions/deep-search/search-results.ts';
import { temporaryFolder } from '../support/temporary-folder.ts';

describe('subQueriesOf', () => {
  it.each([
    ['{"queries": ["a", "b", "c"]}', ['a', 'b']],
    ['```json\n["a", "a", "b"]\n```', ['a', 'b']],
    ['1. first query\n2. second query\n- third', ['first query', 'second query']],
    ['{"queries": []}', ['the question']],
    ['', ['the question']],
  ])('reads %j as %j (at most two)', (answer, expected) => {
    expect(subQueriesOf(answer, 'the question', 2)).toEqual(expected);
  });
});

describe('searchResultsOf', () => {
  it('reads JSON results under their usual names, and only http(s) URLs', () => {
    expect(searchResultsOf(JSON.stringify({ organic_results: [{ link: 'https://a.example/1', title: 'A', description: 'about a' }, { link: 'ftp://b.example', title: 'B' }] }))).toEqual([
      { url: 'https://a.example/1', title: 'A', snippet: 'about a' },
    ]);
    expect(searchResultsOf(JSON.stringify([{ url: 'http://c.example', content: 'c' }]))).toEqual([{ url: 'http://c.example', title: 'http://c.example', snippet: 'c' }]);
  });

  it('reads plain text in labelled blocks, as Brave Search\'s MCP server writes it', () => {
    expect(searchResultsOf('Title: Heat pumps\nDescription: They move heat.\nURL: https://a.example/heat\n\nTitle: Costs\nDescription: About as gas.\nURL: https://b.example/costs')).toEqual([
      { url: 'https://a.example/heat', title: 'Heat pumps', snippet: 'They move heat.' },
      { url: 'https://b.example/costs', title: 'Costs', snippet: 'About as gas.' },
    ]);
  });

  it('reads a block with several URLs as one result per URL, its line the title and the next line the snippet', () => {
    expect(searchResultsOf('- Heat pumps https://a.example/heat\nThey move heat.\n- Costs: https://b.example/costs\nAbout as gas.')).toEqual([
      { url: 'https://a.example/heat', title: 'Heat pumps', snippet: 'They move heat.' },
      { url: 'https://b.example/costs', title: 'Costs', snippet: 'About as gas.' },
    ]);
  });

  it('reads plain text list items: each URL with its line as title and the next line as snippet', () => {
    expect(searchResultsOf('1. Heat pumps - https://a.example/heat\nThey move heat.\n\n2. Costs (https://b.example/costs)\nAbout as gas.')).toEqual([
      { url: 'https://a.example/heat', title: 'Heat pumps', snippet: 'They move heat.' },
      { url: 'https://b.example/costs', title: 'Costs', snippet: 'About as gas.' },
    ]);
  });
});

describe('citedSources', () => {
  const sources: Source[] = [1, 2, 3].map((number) => ({ number, query: 'q', title: `t${number}`, url: `https://x.example/${number}`, snippet: '' }));
  it.each([
    ['A [1] and B [3].', [1, 3]],
    ['A [1][2].', [1, 2]],
    ['A [2, 3].', [2, 3]],
    ['No citations.', [1, 2, 3]],
  ])('%j cites %j', (summary, numbers) => {
    expect(citedSources(summary, sources).map((source) => source.number)).toEqual(numbers);
  });
});

describe('deepSearch in the Lambda bundles', () => {
  it('is left out unless agent.yml sets it', () => {
    expect(functionSubstitutes({ modelProvider: 'openai', ssmClient: false })).toHaveProperty('#deep-search');
    expect(functionSubstitutes({ modelProvider: 'openai', ssmClient: false, deepSearch: true })).not.toHaveProperty('#deep-search');
  });

  it.each([
    ['deepSearch: { server: web, tool: search }', true],
    ['deepSearch: { server: web, tool: search, enabled: false }', false],
    ['deepSearch: false', false],
    ['maxRounds: 4', false],
  ])('%j: %s', (yaml, expected) => {
    const file = path.join(temporaryFolder('deep-search-'), 'agent.yml');
    writeFileSync(file, yaml);
    expect(usesDeepSearch(file)).toBe(expected);
  });

  it('reads its defaults', () => {
    expect(parseConfig('deepSearch: { server: web, tool: search }', { source: 'test.yml', environment: {} }).deepSearch).toEqual({
      enabled: true, server: 'web', tool: 'search', queryArgument: 'query', readArgument: 'url', maxSubQueries: 3, maxResults: 5, maxReads: 3, maxReadChars: 4_000,
    });
  });
});
