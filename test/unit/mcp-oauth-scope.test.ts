import { describe, expect, it } from 'vitest';
import { covers, selectScope, type ScopeSources } from '../../lib/adapters/mcp/oauth/scope.ts';

const code = { grant: 'authorization_code' } as const;

describe('selectScope (the MCP scope selection strategy)', () => {
  it.each<[string, ScopeSources, string | undefined]>([
    ['the configured scopes first', { ...code, configured: ['a', 'b'], challenge: 'c', resourceScopes: ['d'] }, 'a b'],
    ['then the 401 challenge', { ...code, challenge: 'c  e', resourceScopes: ['d'] }, 'c e'],
    ['then the resource\'s scopes_supported', { ...code, resourceScopes: ['d', 'f'] }, 'd f'],
    ['nothing at all: the parameter is left out', { ...code }, undefined],
    ['a step-up adds to what was chosen', { ...code, resourceScopes: ['read'], required: 'read write' }, 'read write'],
    ['offline_access when the authorization server offers it', { ...code, resourceScopes: ['read'], authorizationServerScopes: ['read', 'offline_access'] }, 'read offline_access'],
    ['no offline_access the server does not list', { ...code, resourceScopes: ['read'], authorizationServerScopes: ['read'] }, 'read'],
    ['no offline_access alone, where no scope was chosen', { ...code, authorizationServerScopes: ['offline_access'] }, undefined],
    ['no offline_access for client_credentials', { grant: 'client_credentials', configured: ['read'], authorizationServerScopes: ['offline_access'] }, 'read'],
  ])('takes %s', (_case, sources, expected) => {
    expect(selectScope(sources)).toBe(expected);
  });

  it('knows when a grant covers a scope, in any order', () => {
    expect(covers('write read', 'read')).toBe(true);
    expect(covers('read', 'read write')).toBe(false);
    expect(covers(undefined, 'read')).toBe(false);
  });
});
