import { CfnResource, Duration, type RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { ENV } from '../lib/config/environment.ts';
import { agentFile, switchedOn } from './agent-file.ts';

/** Where the S3 file store keeps every conversation's files (lib/adapters/s3/file-store.ts). */
const FILES_PREFIX = 'conversations/';

export interface FilesBucketProps {
  /** conversation.ttlDays: a file expires as long after it was written as a stored turn does. */
  ttlDays: number;
  removalPolicy: RemovalPolicy;
}

/**
 * The bucket of the conversations' files (agent.yml `files`), created only when files are on:
 * private (all public access blocked, ACLs off), encrypted at rest (S3-managed keys), reachable
 * only over TLS (a bucket policy denies plain HTTP), and emptied by a lifecycle rule that expires
 * each file conversation.ttlDays after it was written, as the table's TTL does each turn.
 *
 * The conversation routes list, read, write and delete files (DELETE /conversations/{id}); the
 * worker runs turns, so it lists, reads and writes them but never deletes. Each gets exactly that,
 * on the files' prefix only. FILES_BUCKET goes to every function: health builds the same agent.
 */
export class FilesBucket extends Construct {
  readonly bucket: Bucket;
  readonly environment: Record<string, string>;

  constructor(scope: Construct, id: string, props: FilesBucketProps) {
    super(scope, id);
    this.bucket = new Bucket(this, 'Bucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      lifecycleRules: [
        { id: 'ExpireWithConversations', expiration: Duration.days(Math.max(1, Math.ceil(props.ttlDays))) },
        { id: 'AbortIncompleteUploads', abortIncompleteMultipartUploadAfter: Duration.days(1) },
      ],
      removalPolicy: props.removalPolicy,
    });
    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions::AwsSolutions-S1',
      reason: 'Only the functions read and write it, each request already in their logs with its conversation; server access logs would need a second bucket for no new question answered (CloudTrail data events are the operator\'s choice).',
    });
    this.environment = { [ENV.filesBucket]: this.bucket.bucketName };
  }

  /** Lets a function run turns (list, read, write) and, with `deletes`, delete a conversation's files. */
  allow(agentFunction: IFunction, options: { deletes: boolean }): void {
    const objects = this.bucket.arnForObjects(`${FILES_PREFIX}*`);
    agentFunction.addToRolePolicy(new PolicyStatement({ actions: ['s3:GetObject', 's3:PutObject', ...(options.deletes ? ['s3:DeleteObject'] : [])], resources: [objects] }));
    agentFunction.addToRolePolicy(new PolicyStatement({ actions: ['s3:ListBucket'], resources: [this.bucket.bucketArn], conditions: { StringLike: { 's3:prefix': [`${FILES_PREFIX}*`] } } }));
    Validations.of(agentFunction).acknowledge({
      id: `AwsSolutions::AwsSolutions-IAM5[Resource::<${Stack.of(this).getLogicalId(this.bucket.node.defaultChild as CfnResource)}.Arn>/${FILES_PREFIX}*]`,
      reason: 'The objects of the files prefix: each conversation\'s files are keyed under it by owner and conversation, which the function decides per request.',
    });
  }
}

/**
 * Whether an agent.yml turns files on, and its conversation.ttlDays, read as written (the synth
 * needs no environment). A `${VAR}` for files counts as on; for ttlDays, the default 30.
 */
export function filesSettingsOf(agentConfigFile: string): { on: boolean; ttlDays: number } {
  const document = agentFile(agentConfigFile) as { files?: unknown; conversation?: { ttlDays?: unknown } };
  const files = document?.files;
  const on = switchedOn(files);
  const ttlDays = Number(document?.conversation?.ttlDays);
  return { on, ttlDays: Number.isFinite(ttlDays) && ttlDays > 0 ? ttlDays : 30 };
}
