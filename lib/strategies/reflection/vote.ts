/**
 * Self-consistency's pick among sampled answers: the one most of the others agree with. Free text
 * rarely matches word for word, so agreement is graded: two answers that are the same after case,
 * spacing and punctuation are ignored agree fully (1); others agree by the share of words they have
 * in common (Jaccard over their words; each CJK character is a word, since those scripts put no
 * spaces between words). An answer's score is its agreement with every other answer; the highest
 * wins, the earliest on a tie. With k answers of which a majority say the same thing, that majority
 * wins: each of them scores at least (majority - 1), which no minority answer can reach unless the
 * answers are near copies of one another anyway.
 */

export interface Vote {
  /** Index of the chosen answer. */
  chosen: number;
  /** Each answer's agreement with the others (the sum of its similarities), rounded to 2 places. */
  scores: number[];
}

export function voteByAgreement(answers: readonly string[]): Vote {
  if (answers.length === 0) throw new Error('voteByAgreement needs at least one answer');
  const normalized = answers.map(normalize);
  const words = normalized.map(wordsOf);
  const scores = answers.map((_, index) => {
    let score = 0;
    for (let other = 0; other < answers.length; other++) {
      if (other === index) continue;
      score += normalized[index] === normalized[other] ? 1 : jaccard(words[index]!, words[other]!);
    }
    return score;
  });
  let chosen = 0;
  scores.forEach((score, index) => {
    if (score > scores[chosen]! + 1e-9) chosen = index;
  });
  return { chosen, scores: scores.map((score) => Math.round(score * 100) / 100) };
}

/** The judge's reply → the index of the answer it picked, or undefined when it named none of them. */
export function judgePick(reply: string, count: number): number | undefined {
  const match = /\d+/.exec(reply);
  if (!match) return undefined;
  const number = Number(match[0]);
  return number >= 1 && number <= count ? number - 1 : undefined;
}

function normalize(answer: string): string {
  return answer.normalize('NFKC').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
}

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

function wordsOf(text: string): Set<string> {
  const words = new Set<string>();
  for (const word of text.split(' ')) {
    if (word === '') continue;
    if (!CJK.test(word)) {
      words.add(word);
      continue;
    }
    // Runs of letters outside the CJK scripts stay words; each CJK character is one.
    for (const piece of word.match(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]|[^\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+/gu) ?? []) words.add(piece);
  }
  return words;
}

function jaccard(left: Set<string>, right: Set<string>): number {
  if (left.size === 0 && right.size === 0) return 1;
  let shared = 0;
  for (const word of left) if (right.has(word)) shared++;
  return shared / (left.size + right.size - shared);
}
