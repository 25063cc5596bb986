import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { ConfigError } from '../core/errors.ts';

const KEY_BYTES = 32;

/**
 * A key of the local run kept in the data folder, so what it derives or seals survives a restart:
 * created at first use as 32 random bytes in hex, readable by its owner only (0600; a key file
 * others could read is made so again). An operator may write their own (at least 64 hex digits).
 * `name` says which key in messages ("HMAC key", "connection key").
 */
export function loadKeyFile(file: string, name: string): Uint8Array {
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    // `wx`: never replaces a key that is there (what it sealed would be lost), even if two processes start at once.
    writeFileSync(file, `${randomBytes(KEY_BYTES).toString('hex')}\n`, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw new ConfigError(`cannot create the ${name} file ${file}: ${(error as Error).message}`, { cause: error });
  }
  try {
    if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  } catch {
    // A key file of another user (an operator's, read-only to us) is theirs to keep; reading it says whether we may.
  }
  const text = readFileSync(file, 'utf8').trim();
  if (!/^(?:[0-9a-fA-F]{2})+$/.test(text) || text.length < KEY_BYTES * 2) {
    throw new ConfigError(`the ${name} file ${file} must hold at least ${KEY_BYTES} bytes as hex (${KEY_BYTES * 2} hex digits); delete it to have a new one created`);
  }
  return Buffer.from(text, 'hex');
}
