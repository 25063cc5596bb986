/**
 * A local S3-compatible server (s3rver: the S3 REST API over a folder) with a bucket, and an S3
 * client for it: the S3 file store is tested on the wire, not against a mock.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';

export interface LocalS3 {
  client: S3Client;
  bucket: string;
  endpoint: string;
  close(): Promise<void>;
}

export async function startLocalS3(bucket = 'conversation-files'): Promise<LocalS3> {
  const directory = await mkdtemp(join(tmpdir(), 'local-s3-'));
  const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const client = createLocalS3Client(endpoint);
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  return {
    client,
    bucket,
    endpoint,
    async close() {
      client.destroy();
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/** s3rver takes its own fixed keys, path-style addressing, and no checksum trailers. */
export function createLocalS3Client(endpoint: string): S3Client {
  return new S3Client({
    endpoint,
    forcePathStyle: true,
    region: 'us-east-1',
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}
