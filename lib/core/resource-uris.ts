/**
 * Which resource URIs a server's `readResources` patterns allow. Patterns match the URI as text
 * (globs.ts), so `file:///srv/reports/*` would also match `file:///srv/reports/../../etc/passwd`,
 * which a server resolves to a path outside the pattern. A URI with a dot segment is therefore
 * refused before matching, in every spelling a server might resolve: `.` and `..` plain or
 * percent-encoded (`%2e%2e`, decoded more than once), between `/` or `\`, encoded or not.
 */
import { globsMatcher } from './globs.ts';

/** Enough for any escape a server would decode (`%252e` is `%2e` once decoded, `.` twice). */
const MAXIMUM_DECODINGS = 4;
/** The escapes that can spell a dot segment: `.`, `/`, `\`, `?`, `#`, and `%` itself. */
const SEGMENT_ESCAPES = /%(2e|2f|5c|3f|23|25)/gi;
const SEPARATORS = /[/\\?#]/;

export function resourceUriMatcher(patterns: readonly string[]): (uri: string) => boolean {
  const matches = globsMatcher(patterns);
  return (uri) => !dotSegmentIn(uri) && matches(uri);
}

/** True when a segment of the URI is `.` or `..`, once the escapes that could spell one are decoded. */
export function dotSegmentIn(uri: string): boolean {
  let decoded = uri;
  for (let round = 0; round < MAXIMUM_DECODINGS; round++) {
    const next = decoded.replace(SEGMENT_ESCAPES, (_escape, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
    if (next === decoded) break;
    decoded = next;
  }
  return decoded.split(SEPARATORS).some((segment) => segment === '.' || segment === '..');
}
