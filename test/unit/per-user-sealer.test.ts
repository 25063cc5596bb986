import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createKeySealer, SealedRecordError, type SealContext } from '../../lib/adapters/mcp/per-user/sealer.ts';
import { loadConnectionKey } from '../../lib/local/connection-key.ts';

const ALICE_CRM: SealContext = { purpose: 'connection', owner: 'alice', server: 'crm' };
const TOKENS = JSON.stringify({ tokens: { access_token: 'access-secret-123', refresh_token: 'refresh-secret-456' }, receivedAt: 1 });

describe('sealing per-user connection records (AES-256-GCM, owner and server as additional data)', () => {
  it('opens what it sealed for the same owner and server, and the sealed text holds no plaintext', async () => {
    // Prepare
    const sealer = createKeySealer(randomBytes(32));

    // Act
    const sealed = await sealer.seal(TOKENS, ALICE_CRM);

    // Assess
    expect(sealed).toMatch(/^v1\.local\./);
    expect(sealed).not.toContain('access-secret-123');
    expect(Buffer.from(sealed.split('.')[3]!, 'base64url').toString('latin1')).not.toContain('secret');
    expect(await sealer.open(sealed, ALICE_CRM)).toBe(TOKENS);
  });

  it('seals the same text differently each time (a fresh IV)', async () => {
    const sealer = createKeySealer(randomBytes(32));
    expect(await sealer.seal(TOKENS, ALICE_CRM)).not.toBe(await sealer.seal(TOKENS, ALICE_CRM));
  });

  it.each<[string, SealContext]>([
    ['another owner', { ...ALICE_CRM, owner: 'bob' }],
    ['no owner (authentication off)', { ...ALICE_CRM, owner: undefined }],
    ['an owner whose name runs into the server', { purpose: 'connection', owner: 'alice","crm', server: '' }],
    ['another server', { ...ALICE_CRM, server: 'mail' }],
    ['another purpose', { ...ALICE_CRM, purpose: 'pending' }],
  ])('refuses to open a record under %s', async (_case, other) => {
    // Prepare
    const sealer = createKeySealer(randomBytes(32));
    const sealed = await sealer.seal(TOKENS, ALICE_CRM);

    // Act and assess
    await expect(sealer.open(sealed, other)).rejects.toBeInstanceOf(SealedRecordError);
  });

  it('refuses a record sealed with another key, or changed', async () => {
    const sealed = await createKeySealer(randomBytes(32)).seal(TOKENS, ALICE_CRM);
    const sealer = createKeySealer(randomBytes(32));
    await expect(sealer.open(sealed, ALICE_CRM)).rejects.toBeInstanceOf(SealedRecordError);
    const ownKey = randomBytes(32);
    const own = await createKeySealer(ownKey).seal(TOKENS, ALICE_CRM);
    const parts = own.split('.');
    const ciphertext = Buffer.from(parts[3]!, 'base64url');
    ciphertext[0] = ciphertext[0]! ^ 1;
    parts[3] = ciphertext.toString('base64url');
    await expect(createKeySealer(ownKey).open(parts.join('.'), ALICE_CRM)).rejects.toBeInstanceOf(SealedRecordError);
  });
});

describe('the local connection key file', () => {
  let folder: string | undefined;
  afterEach(() => {
    if (folder) rmSync(folder, { recursive: true, force: true });
    folder = undefined;
  });

  it('is created at first use as 32 random bytes, readable by its owner only, and kept', () => {
    // Prepare
    folder = mkdtempSync(join(tmpdir(), 'connection-key-'));
    const file = join(folder, 'data', 'connection-key');

    // Act
    const first = loadConnectionKey(file);
    chmodSync(file, 0o644);
    const second = loadConnectionKey(file);

    // Assess
    expect(first).toHaveLength(32);
    expect(Buffer.from(second).equals(Buffer.from(first))).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8').trim()).toMatch(/^[0-9a-f]{64}$/);
  });
});
