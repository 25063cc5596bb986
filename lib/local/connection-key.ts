import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { ConfigError } from '../core/errors.ts';

const KEY_BYTES = 32;

/**
 * The local run's key that seals per-user connection tokens (docs/users-own-accounts.md), kept in
 * the data folder so connections survive a restart: created at first use as 32 random bytes in hex,
 * readable by its owner only (0600, made so again if someone loosened it). Deployed, a KMS key
 * takes its place (lib/adapters/aws/kms-sealer.ts).
 */
export function loadConnectionKey(file: string): Uint8Array {
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    // `wx`: never replaces a key that is there (tokens sealed with it would be lost), even if two processes start at once.
    writeFileSync(file, `${randomBytes(KEY_BYTES).toString('hex')}\n`, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw new ConfigError(`cannot create the connection key file ${file}: ${(error as Error).message}`, { cause: error });
  }
  try {
    if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  } catch {
    // A key file of another user (an operator's) is theirs to keep; reading it says whether we may.
  }
  const text = readFileSync(file, 'utf8').trim();
  if (!/^[0-9a-fA-F]{64}$/.test(text)) {
    throw new ConfigError(`the connection key file ${file} must hold ${KEY_BYTES} bytes as hex (64 hex digits); the connections sealed with it cannot be read without it`);
  }
  return Buffer.from(text, 'hex');
}
