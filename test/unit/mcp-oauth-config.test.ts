import { describe, expect, it } from 'vitest';
import { configFailure, parseAgentYml } from '../support/agent-yml.ts';

const serverWith = (oauth: string, extra = '') => `
mcpServers:
  tickets:
    url: https://tickets.example.com/mcp
    oauth: ${oauth}
${extra}`;

describe('the oauth block of a remote MCP server', () => {
  it('defaults to an authorization-code client on the loopback redirect of mcp-login', () => {
    const [server] = parseAgentYml(serverWith('{}')).mcpServers;
    expect(server).toMatchObject({
      oauth: {
        grant: 'authorization_code',
        redirectUrl: 'http://localhost:8976/callback',
        clientName: 'MCP agent service',
        privateKeyAlgorithm: 'RS256',
        refreshBeforeExpirySeconds: 60,
      },
    });
  });

  it('reads secrets from the environment', () => {
    const [server] = parseAgentYml(
      serverWith('{ grant: client_credentials, clientId: agent, clientSecret: "${TICKETS_SECRET}", scopes: [tickets:read], authorizationServer: "https://login.example.com" }'),
      { TICKETS_SECRET: 's3cret' },
    ).mcpServers;
    expect(server).toMatchObject({
      oauth: { grant: 'client_credentials', clientId: 'agent', clientSecret: 's3cret', scopes: ['tickets:read'], authorizationServer: 'https://login.example.com' },
    });
  });

  it.each([
    ['a client secret written in the file', '{ clientId: agent, clientSecret: "s3cret" }', /mcpServers\.tickets\.oauth\.clientSecret: write it as \$\{VARIABLE\}/],
    ['a private key with a default in the file', '{ clientId: agent, privateKey: "${KEY:------BEGIN}" }', /mcpServers\.tickets\.oauth\.privateKey: write it as \$\{VARIABLE\}/],
    ['client_credentials without a client', '{ grant: client_credentials }', /oauth\.clientId: client_credentials needs a pre-registered clientId/],
    ['client_credentials without a secret or key', '{ grant: client_credentials, clientId: agent }', /oauth\.clientSecret: client_credentials needs a clientSecret or a privateKey/],
    ['a secret without its client', '{ clientSecret: "${S}", authorizationServer: "https://login.example.com" }', /oauth\.clientId: a client secret or private key needs the clientId/],
    ['private_key_jwt without a key', '{ clientId: agent, clientSecret: "${S}", tokenEndpointAuthMethod: private_key_jwt, authorizationServer: "https://login.example.com" }', /oauth\.privateKey: private_key_jwt needs a privateKey/],
    ['a client secret without the authorization server it belongs to', '{ grant: client_credentials, clientId: agent, clientSecret: "${S}" }', /oauth\.authorizationServer: a client secret is only ever presented to the authorization server named here/],
    ['a private key without the authorization server it belongs to', '{ clientId: agent, privateKey: "${KEY}" }', /oauth\.authorizationServer: a private key is only ever presented to the authorization server named here/],
    ['a client metadata document over http', '{ clientMetadataUrl: "http://agent.example.com/client.json" }', /oauth\.clientMetadataUrl: a client metadata document URL must be https with a path/],
    ['an unknown key', '{ clientID: agent }', /oauth\.clientID: unknown key, did you mean "clientId"\?/],
    ['an unknown grant', '{ grant: password }', /oauth\.grant: /],
    ['a scope with a space', '{ scopes: ["read write"] }', /oauth\.scopes\.0: a scope is one word/],
    ['jwt-bearer without its token file', '{ grant: jwt-bearer, clientId: agent, authorizationServer: "https://login.example.com" }', /oauth\.assertionFile: jwt-bearer needs the file holding the workload identity token/],
    ['jwt-bearer without a client', '{ grant: jwt-bearer, assertionFile: /var/run/token, authorizationServer: "https://login.example.com" }', /oauth\.clientId: jwt-bearer needs a pre-registered clientId/],
    ['jwt-bearer without the authorization server its token is for', '{ grant: jwt-bearer, clientId: agent, assertionFile: /var/run/token }', /oauth\.authorizationServer: a workload identity token is only ever presented to the authorization server named here/],
    ['a token file for another grant', '{ assertionFile: /var/run/token }', /oauth\.assertionFile: only grant: jwt-bearer reads an assertion file/],
    ['an unknown DPoP setting', '{ dpop: sometimes }', /oauth\.dpop: /],
  ])('rejects %s', (_case, oauth, message) => {
    expect(configFailure(serverWith(oauth), { S: 'x', KEY: 'y' })).toMatch(message);
  });

  it('uses DPoP where the authorization server offers it, unless told otherwise', () => {
    expect(parseAgentYml(serverWith('{}')).mcpServers[0]).toMatchObject({ oauth: { dpop: 'auto' } });
    expect(parseAgentYml(serverWith('{ dpop: required }')).mcpServers[0]).toMatchObject({ oauth: { dpop: 'required' } });
  });

  it('finds a workload identity token file from agent.yml\'s folder', () => {
    const [server] = parseAgentYml(serverWith('{ grant: jwt-bearer, clientId: agent, assertionFile: secrets/token.jwt, authorizationServer: "https://login.example.com" }')).mcpServers;
    expect(server).toMatchObject({ oauth: { grant: 'jwt-bearer', assertionFile: '/etc/agent/secrets/token.jwt' } });
  });

  it('rejects an Authorization header beside oauth, which would hide the token', () => {
    expect(configFailure(serverWith('{}', '    headers: { Authorization: "Bearer ${T}" }'), { T: 'x' })).toMatch(
      /mcpServers\.tickets\.headers\.Authorization: an Authorization header cannot be combined with oauth/,
    );
  });
});
