/**
 * How this service describes itself to an authorization server, from the `oauth` block: its
 * metadata (for dynamic registration, and what a client ID metadata document should say) and its
 * configured, pre-registered credentials.
 */
import type { OAuthClientInformation, OAuthClientMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { OAuthOptions } from './options.ts';

/** RFC 7523 §2.1: the grant of workload identity federation (workload-assertion.ts). */
export const JWT_BEARER_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

export function clientMetadataFor(settings: OAuthOptions, redirectUrl: string | undefined, scope: string | undefined): OAuthClientMetadata {
  const machine = settings.grant !== 'authorization_code';
  const method = settings.tokenEndpointAuthMethod ?? (settings.privateKey ? 'private_key_jwt' : undefined);
  return {
    client_name: settings.clientName,
    redirect_uris: redirectUrl ? [redirectUrl] : [],
    // refresh_token: the service runs unattended, so it asks to be able to renew (SEP-2207).
    grant_types: machine ? [settings.grant === 'jwt-bearer' ? JWT_BEARER_GRANT_TYPE : 'client_credentials'] : ['authorization_code', 'refresh_token'],
    ...(machine ? {} : { response_types: ['code'] }),
    ...(method ? { token_endpoint_auth_method: method } : {}),
    ...(scope ? { scope } : {}),
  };
}

/** The pre-registered client of agent.yml, or undefined when the client is registered or a metadata document. */
export function configuredClient(settings: OAuthOptions): OAuthClientInformation | undefined {
  const { clientId, clientSecret, authorizationServer } = settings;
  if (clientId === undefined) return undefined;
  return {
    client_id: clientId,
    ...(clientSecret === undefined ? {} : { client_secret: clientSecret }),
    // Stamped: the SDK then never presents these credentials to another authorization server.
    ...(authorizationServer === undefined ? {} : { issuer: authorizationServer }),
  };
}
