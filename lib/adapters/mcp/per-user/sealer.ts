/**
 * Sealing a per-user connection's secrets (tokens, a pending authorization's PKCE verifier, a
 * registered client's secret) before they are stored, and opening them after: AES-256-GCM with
 * what the record is for (purpose, owner, server) as additional authenticated data, so a record
 * copied under another owner's or another server's key does not open. The key is the
 * deployment's: a 0600 key file in a local run (lib/local/connection-key.ts), AWS KMS deployed
 * (lib/adapters/aws/kms-sealer.ts: a data key per record, wrapped by the stack's KMS key, with
 * the same context as its encryption context).
 *
 *   v1.<key id>.<iv>.<ciphertext>.<tag>       (base64url parts; the key id says which key sealed it)
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** What a sealed value belongs to; opening it under any other context fails. */
export interface SealContext {
  purpose: 'connection' | 'pending' | 'client';
  /** The owner (undefined: authentication off, the one anonymous owner); none for a server's client. */
  owner?: string | undefined;
  server: string;
}

export interface RecordSealer {
  /** For messages: which key, never the key. */
  readonly description: string;
  seal(plaintext: string, context: SealContext): Promise<string>;
  /** Throws SealedRecordError when the value was not sealed by this key for this context. */
  open(sealed: string, context: SealContext): Promise<string>;
}

export class SealedRecordError extends Error {}

/** The bytes bound to a sealed value: owner absent and owner "" differ, and no field can run into another. */
export function additionalData(context: SealContext): Buffer {
  return Buffer.from(JSON.stringify([context.purpose, context.owner === undefined ? null : context.owner, context.server]), 'utf8');
}

/** AES-256-GCM with a 256-bit key: the local sealer, and the data-key half of the KMS one. */
export function sealWithKey(key: Uint8Array, plaintext: string, context: SealContext): { iv: Buffer; ciphertext: Buffer; tag: Buffer } {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(additionalData(context));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return { iv, ciphertext, tag: cipher.getAuthTag() };
}

export function openWithKey(key: Uint8Array, parts: { iv: Buffer; ciphertext: Buffer; tag: Buffer }, context: SealContext): string {
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, parts.iv);
    decipher.setAAD(additionalData(context));
    decipher.setAuthTag(parts.tag);
    return Buffer.concat([decipher.update(parts.ciphertext), decipher.final()]).toString('utf8');
  } catch (error) {
    throw new SealedRecordError(`a sealed ${context.purpose} record of "${context.server}" does not open with this key for this owner and server`, { cause: error });
  }
}

const b64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64url');
const unb64 = (text: string): Buffer => Buffer.from(text, 'base64url');

/** The local sealer: one 256-bit key (the key file's). */
export function createKeySealer(key: Uint8Array, description = 'local key file'): RecordSealer {
  if (key.length !== 32) throw new Error('a connection key is 32 bytes (AES-256)');
  return {
    description,
    async seal(plaintext, context) {
      const { iv, ciphertext, tag } = sealWithKey(key, plaintext, context);
      return ['v1', 'local', b64(iv), b64(ciphertext), b64(tag)].join('.');
    },
    async open(sealed, context) {
      const [version, keyId, iv, ciphertext, tag] = sealed.split('.');
      if (version !== 'v1' || keyId !== 'local' || !iv || ciphertext === undefined || !tag) {
        throw new SealedRecordError(`a sealed ${context.purpose} record of "${context.server}" was not sealed with the local key`);
      }
      return openWithKey(key, { iv: unb64(iv), ciphertext: unb64(ciphertext), tag: unb64(tag) }, context);
    },
  };
}

export { b64 as toBase64Url, unb64 as fromBase64Url };
