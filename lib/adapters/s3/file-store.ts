import { DeleteObjectsCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { contentTypeOf, fileFolderOf, utf8Bytes, type FileInfo, type FileStore } from '../../core/ports/file-store.ts';
import type { ConversationKey } from '../../core/ports/conversation-store.ts';

/**
 * The files of conversations in an S3 bucket (the stack's: private, encrypted, TLS only, expiring
 * with conversation.ttlDays): `conversations/<owner>/<conversationId>/<name>`, the owner a digest
 * (lib/core/ports/file-store.ts). The description rides in the object's user metadata, URI-encoded (S3
 * metadata is ASCII, 2 KB in all), so a listing is one ListObjectsV2 and a HeadObject per file.
 */
export function createS3FileStore(options: { client: S3Client; bucket: string }): FileStore {
  const { client, bucket } = options;
  const prefixOf = (key: ConversationKey) => `${PREFIX}${fileFolderOf(key).join('/')}/`;

  async function keysOf(key: ConversationKey, signal: AbortSignal | undefined): Promise<string[]> {
    const keys: string[] = [];
    let continuationToken: string | undefined;
    do {
      const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefixOf(key), ...(continuationToken ? { ContinuationToken: continuationToken } : {}) }), { abortSignal: signal });
      for (const object of page.Contents ?? []) if (object.Key) keys.push(object.Key);
      continuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (continuationToken);
    return keys;
  }

  return {
    async put(key, file, callOptions) {
      const description = fitDescription(file.description);
      await client.send(new PutObjectCommand({
        Bucket: bucket,
        Key: prefixOf(key) + file.name,
        Body: file.content,
        ContentType: contentTypeOf(file.name),
        Metadata: { [DESCRIPTION]: encodeURIComponent(description) },
      }), { abortSignal: callOptions?.signal });
      return { name: file.name, description, bytes: utf8Bytes(file.content), updatedAt: new Date().toISOString() };
    },
    async get(key, name, callOptions) {
      try {
        const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: prefixOf(key) + name }), { abortSignal: callOptions?.signal });
        const content = (await object.Body?.transformToString('utf-8')) ?? '';
        return { name, description: descriptionOf(object.Metadata), bytes: utf8Bytes(content), updatedAt: (object.LastModified ?? new Date()).toISOString(), content };
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw error;
      }
    },
    async list(key, callOptions) {
      const prefix = prefixOf(key);
      const keys = await keysOf(key, callOptions?.signal);
      const files = await Promise.all(keys.map(async (objectKey): Promise<FileInfo | undefined> => {
        try {
          const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: objectKey }), { abortSignal: callOptions?.signal });
          return { name: objectKey.slice(prefix.length), description: descriptionOf(head.Metadata), bytes: head.ContentLength ?? 0, updatedAt: (head.LastModified ?? new Date()).toISOString() };
        } catch (error) {
          // Deleted between the listing and its head: not there any more.
          if (isMissing(error)) return undefined;
          throw error;
        }
      }));
      return files.filter((file) => file !== undefined).sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
    },
    async deleteAll(key, callOptions) {
      const keys = await keysOf(key, callOptions?.signal);
      // DeleteObjects takes up to 1,000 keys a request.
      for (let start = 0; start < keys.length; start += 1_000) {
        const objects = keys.slice(start, start + 1_000).map((objectKey) => ({ Key: objectKey }));
        const answer = await client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: objects, Quiet: true } }), { abortSignal: callOptions?.signal });
        if (answer.Errors && answer.Errors.length > 0) throw new Error(`S3 did not delete ${answer.Errors.length} files of the conversation: ${answer.Errors[0]?.Code ?? ''} ${answer.Errors[0]?.Message ?? ''}`);
      }
      return keys.length;
    },
  };
}

const PREFIX = 'conversations/';
const DESCRIPTION = 'description';
/** S3 allows 2 KB of user metadata in all; the encoded description keeps well within it. */
const MAX_ENCODED_DESCRIPTION = 1_800;

/** The description, cut (by whole characters) until its encoded form fits the metadata. */
function fitDescription(description: string): string {
  let characters = [...description];
  while (encodeURIComponent(characters.join('')).length > MAX_ENCODED_DESCRIPTION) characters = characters.slice(0, Math.floor(characters.length * 0.9));
  return characters.join('');
}

function descriptionOf(metadata: Record<string, string> | undefined): string {
  const encoded = metadata?.[DESCRIPTION];
  if (!encoded) return '';
  try {
    return decodeURIComponent(encoded);
  } catch {
    return encoded;
  }
}

const isMissing = (error: unknown): boolean => {
  const name = (error as { name?: string }).name;
  return name === 'NoSuchKey' || name === 'NotFound' || (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404;
};
