/**
 * The FileStore contract on both adapters: a folder (npm start), and S3 on a local S3-compatible
 * server (s3rver), with the S3 client the deployed functions use.
 */
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFolderFileStore } from '../../lib/adapters/folder/file-store.ts';
import { createS3FileStore } from '../../lib/adapters/s3/file-store.ts';
import { startLocalS3, type LocalS3 } from '../support/local-s3.ts';
import { fileStoreContract } from './file-store-contract.ts';

describe('createFolderFileStore', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'folder-files-'));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  fileStoreContract(() => createFolderFileStore({ root }));

  it('keeps files readable by their user only, in folders no owner or name can leave', async () => {
    const store = createFolderFileStore({ root });

    await store.put({ conversationId: 'c-1', owner: '../..' }, { name: '..%2F..%2Fescape.txt', description: '', content: 'x' });

    const owners = await readdir(root);
    for (const owner of owners) expect(owner).toMatch(/^(-|[0-9a-f]{64})$/);
    const folder = join(root, owners.find((owner) => owner !== '-' && owner.length === 64)!, 'c-1');
    const [file] = await readdir(folder);
    expect((await stat(folder)).mode & 0o777).toBe(0o700);
    expect((await stat(join(folder, file!))).mode & 0o777).toBe(0o600);
  });
});

describe('createS3FileStore on a local S3 server', () => {
  let s3: LocalS3;
  beforeAll(async () => {
    s3 = await startLocalS3();
  });
  afterAll(async () => {
    await s3?.close();
  });

  fileStoreContract(() => createS3FileStore({ client: s3.client, bucket: s3.bucket }));

  it('writes each file as one object under its conversation, with the content type of its extension', async () => {
    const store = createS3FileStore({ client: s3.client, bucket: s3.bucket });

    await store.put({ conversationId: 'c-typed', owner: 'carol' }, { name: 'page.html', description: 'A page', content: '<p>hi</p>' });

    const listed = await s3.client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: 'conversations/' }));
    const key = listed.Contents?.map((object) => object.Key).find((name) => name?.endsWith('/c-typed/page.html'));
    expect(key).toMatch(/^conversations\/[0-9a-f]{64}\/c-typed\/page\.html$/);
    const object = await s3.client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: key }));
    expect(object.ContentType).toBe('text/html; charset=utf-8');
    expect(await object.Body?.transformToString()).toBe('<p>hi</p>');
  });
});
