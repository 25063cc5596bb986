import { resolve } from 'node:path';
import { s3FileStoreFor } from '#s3-file-store';
import { createFolderFileStore } from './adapters/folder/file-store.ts';
import { ENV, localDataDir, runsLocally, type Environment } from './config/environment.ts';
import { ConfigError } from './core/errors.ts';
import type { FileStore } from './core/file-store.ts';

/**
 * Where the conversations' files are kept (agent.yml `files`): the S3 bucket of FILES_BUCKET (the
 * stack's), or, in a local run, the folder `files/` under the local data folder (LOCAL_DATA_DIR,
 * `.data`). A Lambda function without the bucket has nowhere lasting to write, so it fails the cold
 * start rather than lose files.
 */
export function configuredFileStore(environment: Environment): FileStore {
  const bucket = environment[ENV.filesBucket]?.trim();
  if (bucket) return s3FileStoreFor(bucket);
  if (!runsLocally(environment)) throw new ConfigError(`files is on in agent.yml, but ${ENV.filesBucket} is not set: deploy with the stack (it creates the bucket and sets it), or name an S3 bucket the function may write`);
  return createFolderFileStore({ root: resolve(localDataDir(environment), 'files') });
}
