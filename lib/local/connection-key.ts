import { loadKeyFile } from './key-file.ts';

/**
 * The local run's key that seals per-user connection tokens (docs/users-own-accounts.md): see
 * key-file.ts. Deployed, a KMS key takes its place (lib/adapters/aws/kms-sealer.ts).
 */
export const loadConnectionKey = (file: string): Uint8Array => loadKeyFile(file, 'connection key');
