import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The version of agent.yml's schema a build bundles: a digest of lib/config's sources. The build
 * stamps the pre-validated agent.json with it (infra/bundled-config.ts) and gives it to the bundle
 * (an esbuild define, infra/bundling.ts), so a function takes a pre-validated file only from a build
 * of the same code (lib/config/prevalidated.ts). Any edit under lib/config changes it, a comment
 * too: the two are always built together, and a needless full validation is only slower.
 */
export function configSchemaVersion(): string {
  const folder = path.resolve(import.meta.dirname, '..', 'lib', 'config');
  const files = readdirSync(folder, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts')).sort();
  const digest = createHash('sha256');
  for (const file of files) digest.update(`${file.replaceAll(path.sep, '/')}\n`).update(readFileSync(path.join(folder, file)));
  return digest.digest('base64url').slice(0, 22);
}
