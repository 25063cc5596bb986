import { resolve } from 'node:path';
import { createFolderFileStore } from './adapters/folder/file-store.ts';
import { ENV, localDataDir, runsLocally, type Environment } from './config/environment.ts';
import { ConfigError } from './core/errors.ts';
import type { FileStore } from './core/ports/file-store.ts';

/**
 * Where the conversations' files are kept (agent.yml `files`): the S3 bucket of FILES_BUCKET (the
 * stack's), or, in a local run, the folder `files/` under the local data folder (LOCAL_DATA_DIR,
 * `.data`). A Lambda function without the bucket has nowhere lasting to write, so it fails the cold
 * start rather than lose files. Imported as `#file-stores`, so a Lambda bundle of a configuration
 * without files leaves the stores and the S3 client out (infra/bundling.ts).
 */
export function configuredFileStore(environment: Environment): FileStore {
  const bucket = environment[ENV.filesBucket]?.trim();
  if (bucket) return s3FileStoreOnFirstUse(bucket);
  if (!runsLocally(environment)) throw new ConfigError(`files is on in agent.yml, but ${ENV.filesBucket} is not set: deploy with the stack (it creates the bucket and sets it), or name an S3 bucket the function may write`);
  return createFolderFileStore({ root: resolve(localDataDir(environment), 'files') });
}

/**
 * The S3 store, its SDK loaded by the first file request: code that builds an agent with files off
 * (or on, locally) never loads the S3 client (test/unit/lazy-aws-sdk.test.ts).
 */
function s3FileStoreOnFirstUse(bucket: string): FileStore {
  let loaded: Promise<FileStore> | undefined;
  const store = () =>
    (loaded ??= Promise.all([import('@aws-sdk/client-s3'), import('./adapters/s3/file-store.ts')]).then(([{ S3Client }, { createS3FileStore }]) =>
      // Checksums only where S3 requires them: S3-compatible servers (MinIO, s3rver) take no trailers.
      createS3FileStore({ client: new S3Client({ requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' }), bucket }),
    ));
  return {
    put: async (key, file, options) => (await store()).put(key, file, options),
    get: async (key, name, options) => (await store()).get(key, name, options),
    list: async (key, options) => (await store()).list(key, options),
    deleteAll: async (key, options) => (await store()).deleteAll(key, options),
  };
}
