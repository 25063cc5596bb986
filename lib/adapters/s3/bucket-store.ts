import { S3Client } from '@aws-sdk/client-s3';
import type { FileStore } from '../../core/file-store.ts';
import { createS3FileStore } from './file-store.ts';

/**
 * The file store on a bucket, with an S3 client from the environment (region, credentials,
 * AWS_ENDPOINT_URL_S3). Imported as `#s3-file-store`, so a Lambda bundle of a configuration
 * without files leaves the S3 client out (infra/bundling.ts).
 */
export function s3FileStoreFor(bucket: string): FileStore {
  // Checksums only where S3 requires them: S3-compatible servers (MinIO, s3rver) take no trailers.
  const client = new S3Client({ requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' });
  return createS3FileStore({ client, bucket });
}
