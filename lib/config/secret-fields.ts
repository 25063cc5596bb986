import { ConfigError } from '../core/errors.ts';

/** Keys of an `oauth` block whose values are secrets. */
const SECRET_KEYS = ['clientSecret', 'privateKey'] as const;

/** The whole value is one reference to the environment: nothing of the secret is in the file. */
const WHOLE_PLACEHOLDER = /^\$\{[A-Za-z_][A-Za-z0-9_]*\}$/;

/**
 * Checks agent.yml as written, before interpolation: an OAuth secret must be `${VAR}`, so that the
 * file (which is committed, bundled into every function and shown in reviews) never holds one. A
 * default (`${VAR:-...}`) would be a secret in the file too, so it is refused as well.
 */
export function assertSecretsFromEnvironment(document: unknown, source: string): void {
  const servers = field(document, 'mcpServers');
  if (!isRecord(servers)) return;
  const problems: string[] = [];
  for (const [name, server] of Object.entries(servers)) {
    const oauth = field(server, 'oauth');
    for (const key of SECRET_KEYS) {
      const value = field(oauth, key);
      if (value === undefined || (typeof value === 'string' && WHOLE_PLACEHOLDER.test(value.trim()))) continue;
      problems.push(
        `mcpServers.${name}.oauth.${key}: write it as \${VARIABLE} and put the secret in that environment variable; ` +
          'agent.yml must not hold secrets',
      );
    }
    // The enterprise identity provider's client secret (auth.mode enterprise-managed) likewise.
    const identityProviderSecret = field(field(field(server, 'auth'), 'identityProvider'), 'clientSecret');
    if (identityProviderSecret !== undefined && !(typeof identityProviderSecret === 'string' && WHOLE_PLACEHOLDER.test(identityProviderSecret.trim()))) {
      problems.push(`mcpServers.${name}.auth.identityProvider.clientSecret: write it as \${VARIABLE} and put the secret in that environment variable; agent.yml must not hold secrets`);
    }
  }
  if (problems.length > 0) throw new ConfigError(`${source} is invalid:\n${problems.map((line) => `  - ${line}`).join('\n')}`);
}

function field(value: unknown, key: string): unknown {
  return isRecord(value) ? value[key] : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
