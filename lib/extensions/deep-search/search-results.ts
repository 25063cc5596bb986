/**
 * A search tool's answer as results (title, URL, snippet). Search servers answer in many shapes:
 * JSON (an array, or an object with `results`, `items`, `organic_results` or `data`; fields named
 * url/link/href, title/name, snippet/content/description/text), or plain text with URLs in it,
 * each URL's line then its snippet. Only http(s) URLs count: a summary cites what a person can open.
 */
export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
}

const LIST_KEYS = ['results', 'items', 'organic_results', 'data'] as const;
const URL_PATTERN = /https?:\/\/[^\s<>"'\])]+/g;

export function searchResultsOf(text: string): SearchResult[] {
  const parsed = parsedJson(text);
  const items = Array.isArray(parsed) ? parsed : listIn(parsed);
  if (items) return items.flatMap((item) => resultOf(item));
  return textResults(text);
}

function parsedJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function listIn(value: unknown): unknown[] | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  for (const key of LIST_KEYS) {
    const list = (value as Record<string, unknown>)[key];
    if (Array.isArray(list)) return list;
  }
  return undefined;
}

function resultOf(item: unknown): SearchResult[] {
  if (item === null || typeof item !== 'object') return [];
  const fields = item as Record<string, unknown>;
  const url = firstText(fields, ['url', 'link', 'href']);
  if (url === undefined || !/^https?:\/\//.test(url)) return [];
  return [{ url, title: firstText(fields, ['title', 'name']) ?? url, snippet: firstText(fields, ['snippet', 'content', 'description', 'text']) ?? '' }];
}

function firstText(fields: Record<string, unknown>, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const value = fields[key];
    if (typeof value === 'string' && value.trim() !== '') return value.trim();
  }
  return undefined;
}

/**
 * Plain text, as most search servers write it: results apart by blank lines, each with one URL
 * (`Title: …`, `URL: …`, `Description: …`, or a list item with the URL after its title). A block
 * with several URLs: each URL with its own line as the title and the next line as the snippet.
 */
function textResults(text: string): SearchResult[] {
  return text.split(/\n\s*\n/).flatMap((block) => {
    const lines = block.split('\n').map((line) => line.trim()).filter((line) => line !== '');
    const urls = [...block.matchAll(URL_PATTERN)].map((match) => match[0]);
    if (urls.length === 1) return [blockResult(lines, urls[0]!)];
    return lines.flatMap((line, index) => [...line.matchAll(URL_PATTERN)].map((match) => ({ url: match[0], title: withoutUrl(line, match[0]) || match[0], snippet: unlabelled(lines[index + 1] ?? '') })));
  });
}

function blockResult(lines: string[], url: string): SearchResult {
  const urlLine = lines.find((line) => line.includes(url))!;
  const labelled = lines.find((line) => /^title\s*:/i.test(line));
  const title = labelled ? unlabelled(labelled) : withoutUrl(urlLine, url) || lines.find((line) => line !== urlLine) || url;
  const snippet = lines.filter((line) => line !== urlLine && line !== labelled && line !== title).map(unlabelled).join(' ');
  return { url, title, snippet };
}

/** A line without its URL, list mark, label and the punctuation left around them. */
const withoutUrl = (line: string, url: string): string => unlabelled(line.replace(url, '')).replace(/[\s:<>()\-–]+$/g, '').trim();
const unlabelled = (line: string): string => line.replace(/^[\s\-*\d.)#]*(?:(?:title|url|link|description|snippet|content)\s*:\s*)?/i, '').trim();
