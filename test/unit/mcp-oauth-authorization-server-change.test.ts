import { describe, expect, it } from 'vitest';
import { movedFrom } from '../../lib/adapters/mcp/oauth/authorization-server-change.ts';

describe('whether an MCP server moved to another authorization server (SEP-2352)', () => {
  it.each([
    ['the same server', 'https://login.example.com/', 'https://login.example.com/', undefined],
    ['the same server, one trailing "/" apart (the SDK stamps with one)', 'https://login.example.com/', 'https://login.example.com', undefined],
    ['the same tenant path', 'https://login.example.com/tenant1', 'https://login.example.com/tenant1/', undefined],
    ['another host', 'https://old.example.com/', 'https://new.example.com/', 'https://old.example.com/'],
    ['another tenant on the same host', 'https://login.example.com/tenant1', 'https://login.example.com/tenant2', 'https://login.example.com/tenant1'],
  ])('%s', (_case, stamped, current, expected) => {
    expect(movedFrom({ issuer: stamped }, current)).toBe(expected);
  });

  it('cannot tell without a stamp (stored by an earlier version) or before discovery', () => {
    expect(movedFrom({}, 'https://login.example.com/')).toBeUndefined();
    expect(movedFrom({ issuer: 'https://login.example.com/' }, undefined)).toBeUndefined();
    expect(movedFrom(undefined, 'https://login.example.com/')).toBeUndefined();
  });
});
