/**
 * The OpenID Connect `application_type` this client registers as (SEP-837, OIDC Dynamic Client
 * Registration §2). An authorization server that receives none assumes "web", and may then refuse
 * the loopback redirect the login command listens on; so it is always sent, chosen from where the
 * person is sent back:
 *
 *   http://localhost…, http://127.x.x.x, http://[::1]     → "native"  (the login command on an operator's machine)
 *   a private-use scheme (com.example.app:/callback)       → "native"
 *   https to any other host (the service's own route)      → "web"
 *   no redirect at all (client_credentials: no person)     → "web"     (a confidential client on a server)
 */
import { isIP } from 'node:net';

export type ApplicationType = 'native' | 'web';

export function applicationType(redirectUrl: string | undefined): ApplicationType {
  if (redirectUrl === undefined) return 'web';
  let url: URL;
  try {
    url = new URL(redirectUrl);
  } catch {
    return 'web';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'native';
  return isLoopbackHost(url.hostname) ? 'native' : 'web';
}

function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return isIP(host) === 6 && host === '::1';
}
