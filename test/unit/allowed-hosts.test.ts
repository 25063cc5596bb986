import { describe, expect, it } from 'vitest';
import { hostRule, refusedHost } from '../../lib/local/allowed-hosts.ts';

describe('the host names npm start answers for', () => {
  const rule = hostRule({ host: '127.0.0.1', allowedHosts: ['agent.lan'] }, 3000);

  it.each(['localhost:3000', 'LOCALHOST:3000', '127.0.0.1:3000', '[::1]:3000', 'agent.lan:3000'])('answers %s', (host) => {
    expect(refusedHost(host, rule)).toBeUndefined();
  });

  it.each([
    ['another name', 'evil.example:3000'],
    ['another port', 'localhost:3001'],
    ['no port (80)', 'localhost'],
    ['a name hidden behind userinfo', 'localhost:3000@evil.example'],
    ['a path after the name', 'localhost:3000/x'],
    ['no Host header', undefined],
  ])('refuses %s with host_not_allowed, naming ALLOWED_HOSTS', (_case, host) => {
    expect(refusedHost(host, rule)).toMatchObject({ code: 'host_not_allowed', message: expect.stringContaining('ALLOWED_HOSTS') });
  });

  it('answers the HOST it listens on (an IPv6 address in brackets) and port 80 without a port', () => {
    expect(refusedHost('[fd00::5]', hostRule({ host: 'fd00::5', allowedHosts: [] }, 80))).toBeUndefined();
    expect(refusedHost('devbox.lan:80', hostRule({ host: 'devbox.lan', allowedHosts: [] }, 80))).toBeUndefined();
  });

  it('answers any host with ALLOWED_HOSTS=*', () => {
    expect(refusedHost('evil.example:1', hostRule({ host: '127.0.0.1', allowedHosts: ['*'] }, 3000))).toBeUndefined();
  });
});
