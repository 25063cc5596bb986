/**
 * AUTH_MODE=oidc's settings (lib/config/environment.ts): OIDC_ISSUER and OIDC_AUDIENCE, read by the
 * deployed functions and by npm start, with messages that say what to set.
 */
import { describe, expect, it } from 'vitest';
import { readDeploymentSettings, readLocalSettings } from '../../lib/config/environment.ts';

describe('AUTH_MODE=oidc settings', () => {
  it('reads the issuer and the audience', () => {
    const settings = readDeploymentSettings({ AUTH_MODE: 'oidc', OIDC_ISSUER: 'https://login.example.com/oauth2/default', OIDC_AUDIENCE: 'api://agent' });
    expect(settings.authMode).toBe('oidc');
    expect(settings.oidc).toEqual({ issuer: 'https://login.example.com/oauth2/default', audience: 'api://agent' });
    expect(readLocalSettings({ AUTH_MODE: 'oidc', OIDC_ISSUER: 'http://localhost:8080/realms/dev', OIDC_AUDIENCE: 'agent' }).oidc).toEqual({ issuer: 'http://localhost:8080/realms/dev', audience: 'agent' });
  });

  it('names what is missing or malformed', () => {
    expect(() => readDeploymentSettings({ AUTH_MODE: 'oidc', OIDC_AUDIENCE: 'agent' })).toThrow('AUTH_MODE=oidc needs OIDC_ISSUER');
    expect(() => readDeploymentSettings({ AUTH_MODE: 'oidc', OIDC_ISSUER: 'https://login.example.com' })).toThrow('AUTH_MODE=oidc needs OIDC_AUDIENCE');
    expect(() => readDeploymentSettings({ AUTH_MODE: 'oidc', OIDC_ISSUER: 'http://login.example.com', OIDC_AUDIENCE: 'a' })).toThrow('OIDC_ISSUER must be an https URL (http only for a provider on localhost)');
    expect(() => readDeploymentSettings({ AUTH_MODE: 'oidc', OIDC_ISSUER: 'login.example.com', OIDC_AUDIENCE: 'a' })).toThrow('OIDC_ISSUER must be a URL');
    expect(() => readDeploymentSettings({ AUTH_MODE: 'oidc', OIDC_ISSUER: 'https://login.example.com/?tenant=1', OIDC_AUDIENCE: 'a' })).toThrow('no query or fragment');
    expect(() => readDeploymentSettings({ AUTH_MODE: 'openid' })).toThrow('AUTH_MODE must be none, iam, cognito or oidc, not "openid"');
  });

  it('refuses LOCAL_CALLER_HEADER under oidc: npm start verifies the token itself', () => {
    expect(() => readLocalSettings({ AUTH_MODE: 'oidc', OIDC_ISSUER: 'https://login.example.com', OIDC_AUDIENCE: 'a', LOCAL_CALLER_HEADER: 'x-caller' })).toThrow('unset LOCAL_CALLER_HEADER');
  });

  it('leaves the other modes without OIDC settings', () => {
    expect(readDeploymentSettings({ AUTH_MODE: 'cognito', OIDC_ISSUER: 'https://login.example.com' }).oidc).toBeUndefined();
  });
});
