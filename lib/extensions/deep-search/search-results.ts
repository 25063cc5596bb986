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

/** Plain text: each URL with the line it stands on as its title, and the next line as its snippet. */
function textResults(text: string): SearchResult[] {
  const lines = text.split('\n');
  return lines.flatMap((line, index) =>
    [...line.matchAll(URL_PATTERN)].map((match) => {
      const title = line.replace(match[0], '').replace(/^[\s\-*\d.)#]+|[\s:<>()-]+$/g, '').trim();
      return { url: match[0], title: title || match[0], snippet: (lines[index + 1] ?? '').trim() };
    }),
  );
}
