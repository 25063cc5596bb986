/**
 * Okapi BM25 over short documents (a tool's name, description and argument names), in memory, no
 * external service. Words are split at non-letters and camelCase humps; CJK text is split into
 * single characters and pairs of characters, since it has no spaces.
 */

interface SearchHit<T> {
  item: T;
  score: number;
}

const K1 = 1.2;
const B = 0.75;
const CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]/;

function tokenize(text: string): string[] {
  const tokens: string[] = [];
  const spaced = text.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2');
  for (const word of spaced.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (!word) continue;
    if (!CJK.test(word)) {
      tokens.push(word);
      continue;
    }
    const characters = [...word];
    characters.forEach((character, index) => {
      tokens.push(character);
      if (index + 1 < characters.length) tokens.push(character + characters[index + 1]);
    });
  }
  return tokens;
}

/** The best `limit` items for the query, best first; items that share no word with it are left out. */
export function searchBm25<T>(items: readonly T[], textOf: (item: T) => string, query: string, limit: number): SearchHit<T>[] {
  const documents = items.map((item) => tokenize(textOf(item)));
  const averageLength = documents.reduce((sum, tokens) => sum + tokens.length, 0) / Math.max(1, documents.length);
  const documentFrequency = new Map<string, number>();
  for (const tokens of documents) for (const token of new Set(tokens)) documentFrequency.set(token, (documentFrequency.get(token) ?? 0) + 1);
  const queryTokens = [...new Set(tokenize(query))];
  const hits: SearchHit<T>[] = [];
  documents.forEach((tokens, index) => {
    const counts = new Map<string, number>();
    for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
    let score = 0;
    for (const token of queryTokens) {
      const frequency = counts.get(token);
      if (!frequency) continue;
      const df = documentFrequency.get(token) ?? 0;
      const idf = Math.log(1 + (documents.length - df + 0.5) / (df + 0.5));
      score += (idf * frequency * (K1 + 1)) / (frequency + K1 * (1 - B + (B * tokens.length) / averageLength));
    }
    if (score > 0) hits.push({ item: items[index]!, score });
  });
  return hits.sort((left, right) => right.score - left.score).slice(0, limit);
}
