import { type RemovalPolicy, Validations } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { ENV } from '../lib/config/environment.ts';

/**
 * The deployment's HMAC key: derives a conversation's id from a first request's requestId (so the
 * id cannot be computed by whoever knows the requestId) and signs page tokens. Secrets Manager
 * generates it at deploy time; it never appears in the template or an environment variable, and
 * the functions read it at cold start like the model key.
 *
 * Kept with the stack by default: a new key changes the id a retried first request derives and
 * ends every page token handed out (no stored conversation is lost).
 */
export class HmacKey extends Construct {
  readonly secret: Secret;
  readonly environment: Record<string, string>;
  readonly readStatement: PolicyStatement;

  constructor(scope: Construct, id: string, props: { removalPolicy: RemovalPolicy }) {
    super(scope, id);
    this.secret = new Secret(this, 'Secret', {
      description: 'The MCP agent service\'s HMAC key (derived conversation ids, page tokens). Generated; keep it secret.',
      // 64 letters and digits: about 380 bits, and nothing that needs escaping anywhere.
      generateSecretString: { passwordLength: 64, excludePunctuation: true, includeSpace: false },
      removalPolicy: props.removalPolicy,
    });
    Validations.of(this.secret).acknowledge({ id: 'AwsSolutions::AwsSolutions-SMG4', reason: 'Rotating the HMAC key would change every conversation id derived from a requestId and void every page token handed out: it is generated once and kept.' });
    this.environment = { [ENV.hmacKeySecretArn]: this.secret.secretArn };
    this.readStatement = new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [this.secret.secretArn] });
  }
}
