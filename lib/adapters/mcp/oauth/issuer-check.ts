/**
 * RFC 9207, the defence against mix-up attacks: a client that talks to several authorization
 * servers can be tricked into sending a code one of them issued to another (which then holds a
 * code, and with a confidential client, the means to redeem it). The authorization response says
 * who issued it (`iss`); the client compares it with the issuer it sent the person to:
 *
 *   iss present                              → must be exactly that issuer (a string comparison,
 *                                               no normalization: RFC 9207 §2.4)
 *   iss absent, the server advertises it     → refused (authorization_response_iss_parameter_supported)
 *   iss absent, the server does not          → accepted, as before RFC 9207
 *
 * Checked before anything else of the callback, an error response included, so a refused code is
 * never sent to any token endpoint.
 */
import { McpOAuthError } from './errors.ts';

/** What the login remembered of the authorization server the person was sent to. */
export interface ExpectedIssuer {
  /** Its metadata's `issuer`. */
  issuer?: string;
  /** It advertises authorization_response_iss_parameter_supported. */
  issRequired?: boolean;
}

export function checkIssuer(server: string, expected: ExpectedIssuer, iss: string | null): void {
  if (iss === null ? expected.issRequired !== true : expected.issuer === undefined || iss === expected.issuer) return;
  const why = iss === null
    ? `carries no iss, although its authorization server (${expected.issuer}) sends one with every response`
    : `came from ${iss}, not from ${expected.issuer}, where the login went`;
  throw new McpOAuthError(
    'mcp_login_issuer_mismatch',
    server,
    `the callback for "${server}" ${why} (RFC 9207: the authorization response may come from another server, a mix-up attack, so its code was not used): start again`,
  );
}
