import * as z from 'zod';
import { RENAMED_KEYS } from './schema.ts';

/** Turns zod issues into lines that name the key and say what is expected. */
export function formatIssues(issues: readonly z.core.$ZodIssue[], prefix: string, schema: z.ZodType): string {
  return issues
    .flatMap((issue) => {
      const base = [prefix, ...issue.path.map(String)].filter(Boolean);
      if (issue.code === 'unrecognized_keys') {
        const known = knownKeys(schema, issue.path);
        return issue.keys.map((key) => {
          const path = [...base, key].join('.');
          const renamed = RENAMED_KEYS[path];
          if (renamed) return `${path}: this key was replaced: ${renamed}`;
          const hint = closest(key, known);
          const expected = known.length > 0 ? ` (known keys: ${known.join(', ')})` : '';
          return `${path}: unknown key${hint ? `, did you mean "${hint}"?` : ''}${expected}`;
        });
      }
      return [`${base.join('.') || '(top level)'}: ${issue.message}`];
    })
    .map((line) => `  - ${line}`)
    .join('\n');
}

/** The keys a strict object accepts at `path` inside `schema`, for "did you mean" hints. */
function knownKeys(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let current: unknown = schema;
  for (const key of path) {
    current = unwrap(current);
    // A list's entries share one schema (an evaluation suite's cases).
    const element = (current as { def?: { type?: string; element?: unknown } }).def;
    if (element?.type === 'array' && typeof key === 'number') {
      current = element.element;
      continue;
    }
    const shape = (current as { shape?: Record<string, unknown> }).shape;
    current = shape?.[String(key)];
    if (!current) return [];
  }
  const shape = (unwrap(current) as { shape?: Record<string, unknown> }).shape;
  return shape ? Object.keys(shape) : [];
}

function unwrap(schema: unknown): unknown {
  let current = schema as { def?: { innerType?: unknown; type?: string; out?: unknown } };
  // Defaults and optionals wrap their schema; a preprocessed one is the output side of a pipe.
  while (current?.def?.innerType || current?.def?.type === 'pipe') current = (current.def.innerType ?? current.def.out) as typeof current;
  return current;
}

function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(word.length / 3)) + 1;
  for (const candidate of candidates) {
    const distance = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}
