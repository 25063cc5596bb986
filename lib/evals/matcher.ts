/**
 * How a suite says what a value must look like (tool arguments, an answer written as JSON): the
 * expected value itself, matched as a subset, with a few operators where equality is too strict.
 *
 *   { city: 上海 }                      an object matches when each key given matches (others may be there)
 *   [1, 2]                             an array matches element by element, same length
 *   { $contains: 上海 }                 a string containing it, or an array with an element matching it
 *   { $regex: "^ORD\\d+$" }            a string matching the regular expression
 *   { $oneOf: [a, b] }                 any one of the matchers
 *   { $exists: false }                 the key is absent (true: present, whatever its value)
 *   { $gte: 1 } { $lte: 5 }            a number within bounds (both may be given)
 *   { $length: 2 }                     a string or an array of that length
 *   { $any: true }                     anything
 *
 * Everything else matches by equality. An object with a `$` key holds operators only.
 */
import { isJsonObject } from '../core/json.ts';

const OPERATORS = ['$contains', '$regex', '$oneOf', '$exists', '$gte', '$lte', '$length', '$any'] as const;
type Operator = (typeof OPERATORS)[number];

const isOperatorObject = (value: unknown): value is Partial<Record<Operator, unknown>> =>
  isJsonObject(value) && Object.keys(value).some((key) => key.startsWith('$'));

/** What is wrong with a matcher as written: one line per problem, each with its path. */
export function matcherProblems(matcher: unknown, path: string): string[] {
  if (Array.isArray(matcher)) return matcher.flatMap((item, index) => matcherProblems(item, `${path}[${index}]`));
  if (!isJsonObject(matcher)) return [];
  if (!isOperatorObject(matcher)) return Object.entries(matcher).flatMap(([key, value]) => matcherProblems(value, `${path}.${key}`));
  const problems: string[] = [];
  for (const [key, value] of Object.entries(matcher)) {
    if (!(OPERATORS as readonly string[]).includes(key)) {
      problems.push(`${path}: "${key}" is not an operator (known: ${OPERATORS.join(', ')}); an object with a "$" key holds operators only`);
      continue;
    }
    if (key === '$regex' && typeof value === 'string') {
      try {
        new RegExp(value);
      } catch (error) {
        problems.push(`${path}.$regex: not a regular expression: ${(error as Error).message}`);
      }
    } else if (key === '$regex') problems.push(`${path}.$regex: must be a string`);
    if ((key === '$gte' || key === '$lte' || key === '$length') && typeof value !== 'number') problems.push(`${path}.${key}: must be a number`);
    if ((key === '$exists' || key === '$any') && typeof value !== 'boolean') problems.push(`${path}.${key}: must be true or false`);
    if (key === '$oneOf') {
      if (!Array.isArray(value) || value.length === 0) problems.push(`${path}.$oneOf: must be a non-empty list of matchers`);
      else problems.push(...matcherProblems(value, `${path}.$oneOf`));
    }
    if (key === '$contains') problems.push(...matcherProblems(value, `${path}.$contains`));
  }
  return problems;
}

/** Why `actual` does not match, naming where (`path`); undefined when it matches. */
export function mismatch(matcher: unknown, actual: unknown, path = '$'): string | undefined {
  if (isOperatorObject(matcher)) return operatorMismatch(matcher, actual, path);
  if (Array.isArray(matcher)) {
    if (!Array.isArray(actual)) return `${path}: expected an array, got ${shown(actual)}`;
    if (actual.length !== matcher.length) return `${path}: expected ${matcher.length} element(s), got ${actual.length}: ${shown(actual)}`;
    for (const [index, item] of matcher.entries()) {
      const problem = mismatch(item, actual[index], `${path}[${index}]`);
      if (problem) return problem;
    }
    return undefined;
  }
  if (isJsonObject(matcher)) {
    if (!isJsonObject(actual)) return `${path}: expected an object, got ${shown(actual)}`;
    for (const [key, item] of Object.entries(matcher)) {
      if (isOperatorObject(item) && item.$exists === false) {
        if (key in actual) return `${path}.${key}: expected no such key, got ${shown(actual[key])}`;
        continue;
      }
      if (!(key in actual)) return `${path}.${key}: missing`;
      const problem = mismatch(item, actual[key], `${path}.${key}`);
      if (problem) return problem;
    }
    return undefined;
  }
  return Object.is(matcher, actual) ? undefined : `${path}: expected ${shown(matcher)}, got ${shown(actual)}`;
}

function operatorMismatch(matcher: Partial<Record<Operator, unknown>>, actual: unknown, path: string): string | undefined {
  if (matcher.$any === true || matcher.$exists === true) return undefined;
  if (matcher.$regex !== undefined && !(typeof actual === 'string' && new RegExp(matcher.$regex as string).test(actual))) {
    return `${path}: expected a string matching /${String(matcher.$regex)}/, got ${shown(actual)}`;
  }
  if (matcher.$contains !== undefined) {
    const needle = matcher.$contains;
    const found = typeof actual === 'string' ? typeof needle === 'string' && actual.includes(needle) : Array.isArray(actual) && actual.some((item) => mismatch(needle, item) === undefined);
    if (!found) return `${path}: expected ${typeof actual === 'string' ? 'a string' : 'an array'} containing ${shown(needle)}, got ${shown(actual)}`;
  }
  if (matcher.$oneOf !== undefined && !(matcher.$oneOf as unknown[]).some((option) => mismatch(option, actual) === undefined)) {
    return `${path}: expected one of ${shown(matcher.$oneOf)}, got ${shown(actual)}`;
  }
  if (matcher.$gte !== undefined && !(typeof actual === 'number' && actual >= (matcher.$gte as number))) return `${path}: expected a number >= ${String(matcher.$gte)}, got ${shown(actual)}`;
  if (matcher.$lte !== undefined && !(typeof actual === 'number' && actual <= (matcher.$lte as number))) return `${path}: expected a number <= ${String(matcher.$lte)}, got ${shown(actual)}`;
  if (matcher.$length !== undefined) {
    const length = typeof actual === 'string' || Array.isArray(actual) ? actual.length : undefined;
    if (length !== matcher.$length) return `${path}: expected length ${String(matcher.$length)}, got ${length === undefined ? shown(actual) : length}`;
  }
  return undefined;
}

const MAX_SHOWN_CHARS = 200;

/** A value as JSON, cut short: failure reasons stay one readable line. */
export function shown(value: unknown): string {
  const text = value === undefined ? 'nothing' : JSON.stringify(value);
  return text.length > MAX_SHOWN_CHARS ? `${text.slice(0, MAX_SHOWN_CHARS)}…` : text;
}
