/**
 * What the token store keeps per MCP server. Everything here is secret or close to it (tokens,
 * dynamically registered client secrets, a PKCE verifier, a DPoP private key): it lives only in the token store (a
 * 0600 file locally, Secrets Manager on AWS) and is never logged.
 */
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { DpopKey } from './dpop-proof.ts';

export interface OAuthServerRecord {
  /** The MCP server URL the record was made for: when agent.yml points the name elsewhere, it is ignored. */
  serverUrl: string;
  /** As the SDK hands them over (with the `issuer` stamp of the authorization server that issued them). */
  tokens?: OAuthTokens;
  /** The key pair the tokens are bound to (RFC 9449 DPoP), when the authorization server bound them. */
  dpopKey?: DpopKey;
  /** When the tokens arrived (ms since the epoch): `expires_in` counts from here. */
  receivedAt?: number;
  /** The scope asked for when these tokens were obtained (a token response need not repeat it). */
  requestedScope?: string;
  /** Where the protected resource metadata was found, when a challenge named it (a custom location). */
  resourceMetadataUrl?: string;
  /** A dynamically registered client, or the metadata-document client ID, stamped with its issuer. */
  client?: OAuthClientInformationMixed;
  /** An authorization a person has been sent to and has not completed yet. */
  pendingLogin?: PendingLogin;
  /** A scope the server asked for that only a person can grant (step-up): the next login asks for it. */
  requiredScope?: string;
}

export interface PendingLogin {
  /** Sent with the authorization request; the callback must bring it back (CSRF protection). */
  state: string;
  codeVerifier: string;
  redirectUrl: string;
  scope?: string;
  resourceMetadataUrl?: string;
  startedAt: number;
  /** The issuer the person was sent to: a callback's `iss` must be exactly this (RFC 9207). */
  issuer?: string;
  /** The authorization server advertises authorization_response_iss_parameter_supported: a callback without `iss` is refused. */
  issRequired?: boolean;
}

/** The record, when it belongs to this server URL. */
export function recordFor(record: OAuthServerRecord | undefined, serverUrl: string): OAuthServerRecord | undefined {
  return record?.serverUrl === serverUrl ? record : undefined;
}

/** When the access token stops being valid (ms since the epoch), if the server said. */
export function expiresAt(record: OAuthServerRecord): number | undefined {
  const seconds = record.tokens?.expires_in;
  if (seconds === undefined || record.receivedAt === undefined || !Number.isFinite(seconds)) return undefined;
  return record.receivedAt + seconds * 1000;
}
