/**
 * Seals per-user connection secrets with AWS KMS, by envelope: each record gets a fresh data key
 * (GenerateDataKey, AES-256) that encrypts it with AES-256-GCM (sealer.ts), and only the data key
 * wrapped by the KMS key is stored beside it. The record's purpose, owner and server are both the
 * GCM additional data and the KMS encryption context, so neither the record nor its wrapped key
 * opens for another owner or server (and CloudTrail shows which owner's record was opened).
 *
 *   v1.kms.<wrapped data key>.<iv>.<ciphertext>.<tag>
 */
import { DecryptCommand, GenerateDataKeyCommand, type KMSClient } from '@aws-sdk/client-kms';
import { fromBase64Url, openWithKey, sealWithKey, SealedRecordError, toBase64Url, type RecordSealer, type SealContext } from '../mcp/per-user/sealer.ts';

interface KmsSealerOptions {
  client: KMSClient;
  /** The key's id, ARN or alias. */
  keyId: string;
}

function encryptionContext(context: SealContext): Record<string, string> {
  return { purpose: context.purpose, owner: context.owner === undefined ? '-' : `owner:${context.owner}`, server: context.server };
}

export function createKmsSealer(options: KmsSealerOptions): RecordSealer {
  const { client, keyId } = options;
  return {
    description: `KMS key ${keyId}`,
    async seal(plaintext, context) {
      const generated = await client.send(new GenerateDataKeyCommand({ KeyId: keyId, KeySpec: 'AES_256', EncryptionContext: encryptionContext(context) }));
      if (!generated.Plaintext || !generated.CiphertextBlob) throw new Error(`KMS returned no data key for ${keyId}`);
      try {
        const { iv, ciphertext, tag } = sealWithKey(generated.Plaintext, plaintext, context);
        return ['v1', 'kms', toBase64Url(generated.CiphertextBlob), toBase64Url(iv), toBase64Url(ciphertext), toBase64Url(tag)].join('.');
      } finally {
        generated.Plaintext.fill(0);
      }
    },
    async open(sealed, context) {
      const [version, kind, wrapped, iv, ciphertext, tag] = sealed.split('.');
      if (version !== 'v1' || kind !== 'kms' || !wrapped || !iv || ciphertext === undefined || !tag) {
        throw new SealedRecordError(`a sealed ${context.purpose} record of "${context.server}" was not sealed with KMS`);
      }
      let key: Uint8Array | undefined;
      try {
        key = (await client.send(new DecryptCommand({ CiphertextBlob: fromBase64Url(wrapped), EncryptionContext: encryptionContext(context), KeyId: keyId }))).Plaintext;
      } catch (error) {
        throw new SealedRecordError(`KMS would not unwrap the data key of a ${context.purpose} record of "${context.server}" for this owner and server`, { cause: error });
      }
      if (!key) throw new SealedRecordError('KMS returned no data key');
      try {
        return openWithKey(key, { iv: fromBase64Url(iv), ciphertext: fromBase64Url(ciphertext), tag: fromBase64Url(tag) }, context);
      } finally {
        key.fill(0);
      }
    },
  };
}
