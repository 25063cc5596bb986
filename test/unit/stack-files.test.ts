/**
 * The files' bucket (agent.yml `files`), read from the synthesized template: created only when
 * files are on; private, encrypted, TLS only, expiring with conversation.ttlDays; named to every
 * function; and each function allowed exactly the file actions it performs, on the files' prefix.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { filesSettingsOf } from '../../infra/files-bucket.ts';
import { environmentOf, logicalId, templateFor } from '../support/stack-template.ts';
import { temporaryFolder } from '../support/temporary-folder.ts';

const WITH_FILES = { agentConfig: 'test/fixtures/files-agent.yml' };

/** Every S3 statement of a function's role. */
function s3StatementsOf(template: Template, name: string): Array<{ Action: string | string[]; Resource: unknown; Condition?: unknown }> {
  const roleId = logicalId(template, 'AWS::IAM::Role', `Functions${name}FunctionServiceRole`);
  const policies = Object.values(template.findResources('AWS::IAM::Policy')).filter((policy) => JSON.stringify(policy.Properties.Roles) === JSON.stringify([{ Ref: roleId }]));
  return policies.flatMap((policy) => policy.Properties.PolicyDocument.Statement).filter((statement: { Action: string | string[] }) => [statement.Action].flat().some((action) => action.startsWith('s3:')));
}

describe('McpAgentStack with files', () => {
  it('creates no bucket when files are off (the default agent.yml)', () => {
    const template = templateFor();
    template.resourceCountIs('AWS::S3::Bucket', 0);
    expect(environmentOf(template, 'Stream')).not.toHaveProperty('FILES_BUCKET');
  });

  it('creates a private, encrypted bucket whose files expire with the conversations (ttlDays 7.5 → 8 days)', () => {
    const template = templateFor(WITH_FILES);

    template.resourceCountIs('AWS::S3::Bucket', 1);
    template.hasResourceProperties('AWS::S3::Bucket', {
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
      OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
      LifecycleConfiguration: {
        Rules: Match.arrayWith([
          Match.objectLike({ Id: 'ExpireWithConversations', ExpirationInDays: 8, Status: 'Enabled' }),
          Match.objectLike({ AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 } }),
        ]),
      },
    });
  });

  it('denies every request that is not over TLS', () => {
    const template = templateFor(WITH_FILES);
    const bucket = logicalId(template, 'AWS::S3::Bucket', 'FilesBucket');
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: bucket },
      PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Action: 's3:*', Principal: { AWS: '*' }, Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]) },
    });
  });

  it('names the bucket to every function, and lets each do only what it does with files', () => {
    const template = templateFor(WITH_FILES);
    const bucket = logicalId(template, 'AWS::S3::Bucket', 'FilesBucket');
    for (const name of ['Stream', 'Worker', 'HealthAndFallbacks']) expect(environmentOf(template, name).FILES_BUCKET).toEqual({ Ref: bucket });

    const objects = { 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucket, 'Arn'] }, '/conversations/*']] };
    const listing = { Action: 's3:ListBucket', Effect: 'Allow', Resource: { 'Fn::GetAtt': [bucket, 'Arn'] }, Condition: { StringLike: { 's3:prefix': ['conversations/*'] } } };
    expect(s3StatementsOf(template, 'Stream')).toEqual([{ Action: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'], Effect: 'Allow', Resource: objects }, listing]);
    expect(s3StatementsOf(template, 'Worker')).toEqual([{ Action: ['s3:GetObject', 's3:PutObject'], Effect: 'Allow', Resource: objects }, listing]);
    expect(s3StatementsOf(template, 'HealthAndFallbacks')).toEqual([]);
  });

  it.each([
    ['files: true', { on: true, ttlDays: 30 }],
    ['files: { maxBytes: 1000 }\nconversation: { ttlDays: 3 }', { on: true, ttlDays: 3 }],
    ['files: "${FILES}"', { on: true, ttlDays: 30 }],
    ['files: false', { on: false, ttlDays: 30 }],
    ['files: { enabled: false }', { on: false, ttlDays: 30 }],
    ['maxRounds: 3\nconversation: { ttlDays: "${TTL}" }', { on: false, ttlDays: 30 }],
  ])('reads %j as %j', (text, expected) => {
    const path = join(temporaryFolder('stack-files-'), 'agent.yml');
    writeFileSync(path, `${text}\n`);
    expect(filesSettingsOf(path)).toEqual(expected);
  });
});
