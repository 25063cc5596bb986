import type { DetailedError } from '@cedar-policy/cedar-wasm/web';

/** Cedar's errors about a file, each with its line and column: "policies.cedar:3:14: message (label)". */
export function describeErrors(errors: readonly DetailedError[], text: string, source: string): string {
  return errors.map((error) => describeError(error, text, source)).join('\n  - ');
}

export function describeError(error: DetailedError, text: string, source: string, offsetBase = 0): string {
  const located = error.sourceLocations?.[0];
  const where = located ? `${source}:${lineAndColumn(text, offsetBase + located.start)}` : source;
  const label = located?.label ? ` (${located.label})` : '';
  const help = error.help ? `; ${error.help}` : '';
  return `${where}: ${error.message}${label}${help}`;
}

/** 1-based line and column of a byte offset (Cedar counts the UTF-8 bytes of the text). */
export function lineAndColumn(text: string, offset: number): string {
  const before = Buffer.from(text, 'utf8').subarray(0, Math.max(0, offset)).toString('utf8');
  const line = before.split('\n').length;
  const column = before.length - before.lastIndexOf('\n');
  return `${line}:${column}`;
}
