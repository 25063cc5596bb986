import { loadKeyFile } from './key-file.ts';

/** The local run's HMAC key (derived conversation ids, page tokens): see key-file.ts. */
export const loadLocalHmacKey = (file: string): Uint8Array => loadKeyFile(file, 'HMAC key');
