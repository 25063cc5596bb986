/**
 * The deployed sealer: envelope encryption with KMS, mocked at the AWS SDK seam. The mock wraps a
 * data key together with the encryption context it was asked with, and unwraps it only for the
 * same context, as KMS does.
 */
import { randomBytes } from 'node:crypto';
import { DecryptCommand, GenerateDataKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it } from 'vitest';
import { createKmsSealer } from '../../lib/adapters/aws/kms-sealer.ts';
import { SealedRecordError } from '../../lib/adapters/mcp/per-user/sealer.ts';

function kmsStandIn() {
  const kms = mockClient(KMSClient);
  const wrapped = new Map<string, { key: Buffer; context: string }>();
  kms.on(GenerateDataKeyCommand).callsFake((input: { EncryptionContext?: Record<string, string> }) => {
    const key = randomBytes(32);
    const blob = randomBytes(16);
    wrapped.set(blob.toString('hex'), { key: Buffer.from(key), context: JSON.stringify(input.EncryptionContext) });
    return { Plaintext: new Uint8Array(key), CiphertextBlob: new Uint8Array(blob), KeyId: 'key' };
  });
  kms.on(DecryptCommand).callsFake((input: { CiphertextBlob: Uint8Array; EncryptionContext?: Record<string, string> }) => {
    const found = wrapped.get(Buffer.from(input.CiphertextBlob).toString('hex'));
    if (!found || found.context !== JSON.stringify(input.EncryptionContext)) throw Object.assign(new Error('InvalidCiphertextException'), { name: 'InvalidCiphertextException' });
    return { Plaintext: new Uint8Array(found.key) };
  });
  return kms;
}

describe('sealing connection records with KMS', () => {
  it('wraps a fresh data key per record, with the owner and server as encryption context, and opens it for them only', async () => {
    // Prepare
    const kms = kmsStandIn();
    const sealer = createKmsSealer({ client: new KMSClient({ region: 'eu-west-1' }), keyId: 'arn:aws:kms:eu-west-1:123456789012:key/abc' });

    // Act
    const sealed = await sealer.seal('{"access_token":"secret-token"}', { purpose: 'connection', owner: 'alice', server: 'crm' });

    // Assess
    expect(sealed).toMatch(/^v1\.kms\./);
    expect(sealed).not.toContain('secret-token');
    expect(kms.commandCalls(GenerateDataKeyCommand)[0]!.args[0].input).toMatchObject({ KeySpec: 'AES_256', EncryptionContext: { purpose: 'connection', owner: 'owner:alice', server: 'crm' } });
    expect(await sealer.open(sealed, { purpose: 'connection', owner: 'alice', server: 'crm' })).toBe('{"access_token":"secret-token"}');
    await expect(sealer.open(sealed, { purpose: 'connection', owner: 'bob', server: 'crm' })).rejects.toBeInstanceOf(SealedRecordError);
    await expect(sealer.open(sealed, { purpose: 'connection', owner: 'alice', server: 'mail' })).rejects.toBeInstanceOf(SealedRecordError);
    kms.restore();
  });
});
