/**
 * How this service describes itself to an authorization server, from the `oauth` block: its
 * metadata (for dynamic registration, and what a client ID metadata document should say) and its
 * configured, pre-registered credentials.
 */
import type { OAuthClientInformation, OAuthClientMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { OAuthOptions } from './options.ts';
import { applicationType, type ApplicationType } from './registration-metadata.ts';

/** RFC 7523 §2.1: the grant of workload identity federation (workload-assertion.ts). */
export const JWT_BEARER_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/** The SDK's type has no `application_type` (SEP-837); it sends whatever the object holds. */
type RegistrationMetadata = OAuthClientMetadata & { application_type: ApplicationType };

export function clientMetadataFor(settings: OAuthOptions, redirectUrl: string | undefined, scope: string | undefined): RegistrationMetadata {
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
    application_type: applicationType(redirectUrl),
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
