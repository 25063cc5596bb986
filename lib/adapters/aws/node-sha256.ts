import { createHash, createHmac } from 'node:crypto';

/**
 * SHA-256 (and HMAC-SHA-256 with a secret) in the shape @smithy/signature-v4 asks for, over
 * node:crypto: native hashing, where the SDK's own implementation is JavaScript. The SDK's signer
 * uses it for Bedrock's OpenAI-compatible endpoints; the lean AWS clients sign with
 * sign-json-post.ts, and test/unit/sign-json-post.test.ts compares the two through it.
 */
export class NodeSha256 {
  private readonly hash;
  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', typeof secret === 'string' ? secret : toBuffer(secret));
  }
  update(data: string | ArrayBuffer | ArrayBufferView): void {
    this.hash.update(typeof data === 'string' ? data : toBuffer(data));
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }
}

const toBuffer = (data: ArrayBuffer | ArrayBufferView) =>
  ArrayBuffer.isView(data) ? Buffer.from(data.buffer, data.byteOffset, data.byteLength) : Buffer.from(data);
