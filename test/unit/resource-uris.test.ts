import { describe, expect, it } from 'vitest';
import { dotSegmentIn, resourceUriMatcher } from '../../lib/core/resource-uris.ts';

describe('resourceUriMatcher', () => {
  const reports = resourceUriMatcher(['file:///srv/reports/*']);

  it('matches the URIs under a pattern', () => {
    expect(reports('file:///srv/reports/2026/q1.csv')).toBe(true);
    expect(reports('file:///srv/other/q1.csv')).toBe(false);
  });

  it.each([
    'file:///srv/reports/../../etc/passwd',
    'file:///srv/reports/%2e%2e/%2e%2e/etc/passwd',
    'file:///srv/reports/%2E%2e/%2E./etc/passwd',
    'file:///srv/reports/.%2e/etc/passwd',
    'file:///srv/reports/./../etc/passwd',
    'file:///srv/reports/..',
    'file:///srv/reports/..\\..\\etc\\passwd',
    'file:///srv/reports/%2e%2e%2f%2e%2e%2fetc/passwd',
    'file:///srv/reports/%2e%2e%5cetc/passwd',
    'file:///srv/reports/..?x=1',
    'file:///srv/reports/..#top',
    'file:///srv/reports/%252e%252e/etc/passwd',
  ])('refuses %s, which matches the pattern as text', (uri) => {
    expect(reports(uri)).toBe(false);
    expect(dotSegmentIn(uri)).toBe(true);
  });

  it.each(['file:///srv/reports/..hidden/q1.csv', 'file:///srv/reports/q1..csv', 'file:///srv/reports/.profile', 'note://t..x'])('keeps %s, whose dots are not a segment of their own', (uri) => {
    expect(dotSegmentIn(uri)).toBe(false);
  });
});
