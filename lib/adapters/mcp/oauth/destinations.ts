/**
 * Where an OAuth flow for one MCP server may send requests. Discovery follows URLs that others
 * name: the MCP server's challenge names its resource metadata, which names the authorization
 * server, whose metadata names the token endpoint that receives the client secret. Followed
 * blindly, a hostile server sends the secret over plain http, to another origin, or to an address
 * inside the network (169.254.169.254, 10.x). So every request of the flow is checked first:
 *
 *   the MCP server's own origin, the configured authorizationServer's  → as agent.yml says
 *   a client secret or key configured (so authorizationServer is)      → only those, and the
 *                                                                        endpoints its metadata names
 *   anything else                                                      → https, to public addresses
 *                                                                        (resolved, every one of them);
 *                                                                        http and loopback only in local runs
 *
 * and the authorization server's metadata must name the issuer it was fetched for (RFC 8414 §3.3,
 * the MCP specification's issuer check) and, with authorizationServer set, be that one.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import type { AuthorizationServerMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { OAuthOptions } from './options.ts';
import { McpOAuthError } from './errors.ts';

/** How far an OAuth flow may reach on the network. */
export interface OAuthNetwork {
  /** Local runs (npm start, mcp-login, tests): http and loopback addresses are allowed, for a developer's own servers. */
  allowLoopback: boolean;
  /** A host name's addresses (default: the system resolver, every address). */
  lookup?: (host: string) => Promise<string[]>;
}

/** Loopback: allowed in local runs only. */
const LOOPBACK = blockList([['127.0.0.0', 8, 'ipv4'], ['::1', 128, 'ipv6']]);
/** Never a destination of a URL someone else named: private, link-local (the metadata service), shared, reserved, multicast. */
const INTERNAL = blockList([
  ['0.0.0.0', 8, 'ipv4'], ['10.0.0.0', 8, 'ipv4'], ['100.64.0.0', 10, 'ipv4'], ['169.254.0.0', 16, 'ipv4'], ['172.16.0.0', 12, 'ipv4'],
  ['192.0.0.0', 24, 'ipv4'], ['192.168.0.0', 16, 'ipv4'], ['198.18.0.0', 15, 'ipv4'], ['224.0.0.0', 4, 'ipv4'], ['240.0.0.0', 4, 'ipv4'],
  ['::', 128, 'ipv6'], ['fc00::', 7, 'ipv6'], ['fe80::', 10, 'ipv6'], ['ff00::', 8, 'ipv6'],
]);

export class OAuthDestinations {
  private readonly server: string;
  private readonly serverUrl: string;
  private readonly network: OAuthNetwork;
  private readonly configuredIssuer: string | undefined;
  /** Origins the operator named: the MCP server's, the authorization server's. */
  private readonly configured: Set<string>;
  /** With authorizationServer set: the origins its checked metadata named for its endpoints. */
  private readonly named = new Set<string>();

  constructor(server: { name: string; url: string; settings: OAuthOptions }, network: OAuthNetwork) {
    this.server = server.name;
    this.serverUrl = server.url;
    this.network = network;
    this.configuredIssuer = server.settings.authorizationServer;
    this.configured = new Set([new URL(server.url).origin, ...(this.configuredIssuer ? [new URL(this.configuredIssuer).origin] : [])]);
  }

  /** `fetch` that refuses (with McpOAuthError, never a TypeError the SDK would swallow) what may not be reached. */
  guard(fetch: FetchLike): FetchLike {
    return async (input, init) => {
      const url = new URL(String(input));
      await this.check(url);
      if (this.configured.has(url.origin)) return fetch(input, init);
      // A redirect is a URL someone else names too: never followed unchecked (the SDK follows
      // same-origin ones itself, through this fetch again).
      return fetch(input, { ...init, redirect: init?.redirect === 'error' ? 'error' : 'manual' });
    };
  }

  /** Throws when a request to `url` is not allowed. */
  async check(url: URL): Promise<void> {
    if (this.configured.has(url.origin)) return;
    if (this.configuredIssuer !== undefined && !this.named.has(url.origin)) {
      throw this.refused(url, `not the authorization server agent.yml names (${this.configuredIssuer}) nor an endpoint of its metadata`);
    }
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const addresses = isIP(host) ? [host] : await this.resolve(url, host);
    const loopback = addresses.every((address) => LOOPBACK.check(address, family(address)));
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback && this.network.allowLoopback)) {
      throw this.refused(url, 'OAuth requests go over https only (plain http only to loopback, in local runs)');
    }
    for (const address of addresses) {
      if (LOOPBACK.check(address, family(address)) ? !this.network.allowLoopback : INTERNAL.check(address, family(address))) {
        throw this.refused(url, `${host === address ? 'it is' : `${host} resolves to ${address},`} a private, loopback or link-local address`);
      }
    }
  }

  /**
   * The authorization server discovery settled on, and its metadata: the metadata must name that
   * server as its issuer; with authorizationServer set, it must be that one; its browser endpoint
   * must be https. Then its endpoints are places the flow may go.
   */
  accept(authorizationServerUrl: string, metadata: AuthorizationServerMetadata | undefined): void {
    if (this.configuredIssuer !== undefined && !sameIssuer(authorizationServerUrl, this.configuredIssuer)) {
      throw new McpOAuthError('mcp_oauth_issuer_mismatch', this.server, `MCP server "${this.server}" names the authorization server ${authorizationServerUrl}, which is not the authorization server agent.yml names (${this.configuredIssuer}): its credentials are not sent there`);
    }
    if (!metadata) return;
    // The 2025-03-26 specification's fallback (no resource metadata) takes the MCP server's origin
    // for the authorization server, an identifier nobody named: its issuer need only be of that origin.
    const fallback = sameIssuer(authorizationServerUrl, new URL('/', this.serverUrl).href) && originOf(metadata.issuer) === new URL(this.serverUrl).origin;
    if (!fallback && !sameIssuer(metadata.issuer, authorizationServerUrl)) {
      throw new McpOAuthError('mcp_oauth_issuer_mismatch', this.server, `the metadata of authorization server ${authorizationServerUrl} (for MCP server "${this.server}") names the issuer ${metadata.issuer}: it must name the server it came from (RFC 8414)`);
    }
    const browser = new URL(metadata.authorization_endpoint);
    const browserAllowed = this.configured.has(browser.origin) || browser.protocol === 'https:' || (browser.protocol === 'http:' && this.network.allowLoopback && isLoopbackName(browser.hostname));
    if (!browserAllowed) {
      throw this.refused(browser, 'a person is sent to the authorization endpoint over https only (plain http only to loopback, in local runs)');
    }
    for (const endpoint of [metadata.token_endpoint, metadata.registration_endpoint]) {
      if (endpoint) this.named.add(new URL(endpoint).origin);
    }
  }

  private async resolve(url: URL, host: string): Promise<string[]> {
    try {
      const addresses = await (this.network.lookup ?? systemLookup)(host);
      if (addresses.length > 0) return addresses;
    } catch {
      // Answered below: a host that does not resolve is not reached.
    }
    throw this.refused(url, `${host} does not resolve`);
  }

  private refused(url: URL, why: string): McpOAuthError {
    return new McpOAuthError('mcp_oauth_destination_refused', this.server, `OAuth discovery for MCP server "${this.server}" refused ${url.origin}${url.pathname}: ${why}`);
  }
}

/**
 * Issuer identifiers compared as URLs, tolerating one trailing "/" (as the SDK binds credentials:
 * `String(new URL(...))` adds one that advertised values often lack).
 */
function sameIssuer(left: string, right: string): boolean {
  const normal = (value: string) => {
    try {
      return new URL(value).href.replace(/\/$/, '');
    } catch {
      return value;
    }
  };
  return normal(left) === normal(right);
}

const originOf = (url: string) => {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
};
const family = (address: string): 'ipv4' | 'ipv6' => (isIP(address) === 6 ? 'ipv6' : 'ipv4');
const isLoopbackName = (hostname: string) => {
  const host = hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host.endsWith('.localhost') || (isIP(host) !== 0 && LOOPBACK.check(host, family(host)));
};

async function systemLookup(host: string): Promise<string[]> {
  return (await dnsLookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
}

function blockList(subnets: Array<[string, number, 'ipv4' | 'ipv6']>): BlockList {
  const list = new BlockList();
  for (const [network, prefix, type] of subnets) list.addSubnet(network, prefix, type);
  return list;
}
