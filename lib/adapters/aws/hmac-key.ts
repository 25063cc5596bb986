import { ConfigError, errorMessage } from '../../core/errors.ts';
import type { ReadSecret } from './secret-reader.ts';

/** Shorter than this, a secret could be guessed offline from one derived id. */
const MIN_SECRET_CHARS = 32;

interface HmacKeySource {
  /** The Secrets Manager secret the stack created with a random value (HMAC_KEY_SECRET_ARN). */
  secretId?: string;
  readSecret: ReadSecret;
}

/**
 * Reads the deployment's HMAC key (derived conversation ids, page tokens) once per container, like
 * the model key: it never sits in the template or the environment. Undefined without a secret (the
 * agent then draws a key per process); a secret that cannot be read, or is too short to be one,
 * fails the cold start.
 */
export async function readHmacKey(source: HmacKeySource): Promise<Uint8Array | undefined> {
  if (!source.secretId) return undefined;
  let text: string;
  try {
    text = (await source.readSecret(source.secretId)) ?? '';
  } catch (error) {
    throw new ConfigError(`cannot read the HMAC key from Secrets Manager secret ${source.secretId}: ${errorMessage(error)}`, { cause: error });
  }
  if (text.length < MIN_SECRET_CHARS) {
    throw new ConfigError(`secret ${source.secretId} must hold at least ${MIN_SECRET_CHARS} characters of random text (the stack generates 64): it derives conversation ids and signs page tokens`);
  }
  return Buffer.from(text, 'utf8');
}
