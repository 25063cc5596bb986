import { describe, expect, it } from 'vitest';
import { clientMetadataFor } from '../../lib/adapters/mcp/oauth/client.ts';
import type { OAuthOptions } from '../../lib/adapters/mcp/oauth/options.ts';
import { applicationType } from '../../lib/adapters/mcp/oauth/registration-metadata.ts';

const settings: OAuthOptions = {
  grant: 'authorization_code',
  privateKeyAlgorithm: 'ES256',
  redirectUrl: 'http://localhost:8976/callback',
  clientName: 'MCP agent service',
  refreshBeforeExpirySeconds: 60,
  dpop: 'auto',
};

describe('the application_type this client registers as (SEP-837)', () => {
  it.each([
    ['the login command\'s default loopback redirect', 'http://localhost:8976/callback', 'native'],
    ['a localhost subdomain', 'http://agent.localhost:8976/callback', 'native'],
    ['an IPv4 loopback address', 'http://127.0.0.1:8976/callback', 'native'],
    ['the IPv6 loopback address', 'http://[::1]:8976/callback', 'native'],
    ['a private-use scheme', 'com.example.agent:/callback', 'native'],
    ['an https redirect to the service itself', 'https://agent.example.com/connections/wiki/callback', 'web'],
    ['plain http to another host', 'http://agent.internal.example/callback', 'web'],
    ['no redirect at all (client_credentials)', undefined, 'web'],
  ] as const)('is chosen from the redirect URL: %s → %s', (_case, redirectUrl, expected) => {
    expect(applicationType(redirectUrl)).toBe(expected);
  });

  it('is part of what dynamic registration sends, whatever the grant', () => {
    expect(clientMetadataFor(settings, settings.redirectUrl, 'wiki:read')).toMatchObject({ application_type: 'native', redirect_uris: ['http://localhost:8976/callback'] });
    expect(clientMetadataFor(settings, 'https://agent.example.com/connections/wiki/callback', undefined)).toMatchObject({ application_type: 'web' });
    expect(clientMetadataFor({ ...settings, grant: 'client_credentials' }, undefined, undefined)).toMatchObject({ application_type: 'web', redirect_uris: [] });
  });
});
