/**
 * Name patterns of agent.yml (tool names, resource URIs): `*` matches any run of characters, `?`
 * one character, everything else itself; a pattern matches the whole name.
 */
export function globsMatcher(patterns: readonly string[]): (name: string) => boolean {
  if (patterns.length === 0) return () => false;
  const expressions = patterns.map(
    (pattern) => new RegExp(`^${[...pattern].map((character) => (character === '*' ? '.*' : character === '?' ? '.' : escape(character))).join('')}$`, 's'),
  );
  return (name) => expressions.some((expression) => expression.test(name));
}

const escape = (character: string) => character.replace(/[\\^$.|+()[\]{}]/g, '\\$&');
