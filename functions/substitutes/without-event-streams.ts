/**
 * Stands in for `@smithy/core/event-streams` in the Lambda bundles (infra/bundling.ts,
 * functionSubstitutes). The AWS SDK's protocol code imports it on first use of an operation with an
 * event stream (Bedrock's, Kinesis's SubscribeToShard, S3 Select); the functions' clients
 * (DynamoDB, Secrets Manager, SQS, EventBridge, SSM; S3 for files, whose Select is never called) have none, so the codec (15 KB of every
 * bundle) would never run there.
 */
const NOT_BUNDLED = 'this bundle was built without AWS event stream support: none of its clients has an event stream operation';

export class EventStreamSerde {
  constructor() {
    throw new Error(NOT_BUNDLED);
  }
}

/**
 * The S3 client (the file store's, with files on) resolves its event stream codec when it is built,
 * for S3 Select, which the file store never calls: it gets none, and is built without throwing.
 */
export const resolveEventStreamSerdeConfig = <Config>(input: Config): Config => input;

export function eventStreamSerdeProvider(): never {
  throw new Error(NOT_BUNDLED);
}
