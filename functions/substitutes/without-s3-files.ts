/**
 * Stands in for lib/adapters/s3/bucket-store.ts (`#s3-file-store`) in the Lambda bundles of a
 * configuration without files (infra/bundling.ts, functionSubstitutes): the S3 client would be dead
 * weight on every cold start. A function that finds files on anyway says so.
 */
import type { FileStore } from '../../lib/core/file-store.ts';

export function s3FileStoreFor(_bucket: string): FileStore {
  throw new Error('This function was bundled without the S3 file store (agent.yml files): deploy the stack again with files on in the agent.yml it bundles.');
}
