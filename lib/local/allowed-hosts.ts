import { InputError } from '../core/errors.ts';

/**
 * The host names npm start answers for. A web page the user opens can make its browser send
 * requests to any address, the local service's included: with `Access-Control-Allow-Origin` it
 * could read the answers, and by DNS rebinding (its own name, pointed at 127.0.0.1 after the page
 * loaded) it can read them without one, as a page of its own origin. Its requests then carry its
 * own name in `Host`, so a service that answers only for the names it is reached by on this
 * machine (and the port it listens on) gives it nothing.
 */
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

export interface HostRule {
  /** Host names, lower case, IPv6 literals in brackets; `*` answers any. */
  names: ReadonlySet<string>;
  port: number;
}

/** localhost, 127.0.0.1, [::1], the HOST it listens on and ALLOWED_HOSTS, at the port it listens on. */
export function hostRule(settings: { host: string; allowedHosts: readonly string[] }, port: number): HostRule {
  const listening = settings.host.includes(':') && !settings.host.startsWith('[') ? `[${settings.host}]` : settings.host;
  return { names: new Set([...LOOPBACK_NAMES, listening.toLowerCase(), ...settings.allowedHosts]), port };
}

/** Undefined when the request's Host header names an allowed host at the right port, else why not. */
export function refusedHost(hostHeader: string | undefined, rule: HostRule): InputError | undefined {
  if (rule.names.has('*')) return undefined;
  const target = parseHost(hostHeader);
  if (target && rule.names.has(target.name) && target.port === rule.port) return undefined;
  const allowed = [...rule.names].map((name) => `${name}:${rule.port}`).join(', ');
  return new InputError(
    'host_not_allowed',
    `This server does not answer for ${hostHeader ? `host "${hostHeader}"` : 'a request without a Host header'}: only for ${allowed}. ` +
      'Nothing ran. Add the name you reach it by to ALLOWED_HOSTS (comma-separated) to allow it.',
  );
}

function parseHost(hostHeader: string | undefined): { name: string; port: number } | undefined {
  if (!hostHeader) return undefined;
  try {
    // The URL parser reads the forms a Host header takes: name, name:port, [v6], [v6]:port.
    const url = new URL(`http://${hostHeader}`);
    if (url.host.toLowerCase() !== hostHeader.toLowerCase() && url.hostname + ':80' !== hostHeader.toLowerCase()) return undefined;
    return { name: url.hostname.toLowerCase(), port: url.port === '' ? 80 : Number(url.port) };
  } catch {
    return undefined;
  }
}
