import { ArnFormat, type RemovalPolicy, SecretValue, Stack, Validations } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { ENV } from '../lib/config/environment.ts';
import { Construct } from 'constructs';

export interface ModelApiKeyProps {
  secretArn?: string;
  parameterName?: string;
  removalPolicy: RemovalPolicy;
}

/**
 * Where the functions read the model API key at cold start: the environment carries only the
 * secret's ARN or the parameter's name, never the key, and `readStatement` allows reading exactly
 * that one secret or parameter.
 *
 * Both stores encrypt with their AWS-managed keys (aws/secretsmanager, aws/ssm), whose key policies
 * already allow decryption through the service for principals of the account: no kms:Decrypt
 * statement is needed. A secret or parameter under a customer-managed key would need one.
 */
export class ModelApiKey extends Construct {
  readonly environment: Record<string, string>;
  readonly readStatement: PolicyStatement;
  /** Set when the stack created the secret (neither a secret nor a parameter was given). */
  readonly createdSecret?: Secret;

  constructor(scope: Construct, id: string, props: ModelApiKeyProps) {
    super(scope, id);
    if (props.parameterName !== undefined) {
      this.environment = { [ENV.modelApiKeyParameterName]: props.parameterName };
      this.readStatement = new PolicyStatement({ actions: ['ssm:GetParameter'], resources: [parameterArn(this, props.parameterName)] });
      return;
    }
    let secretArn = props.secretArn;
    if (secretArn === undefined) {
      // CloudFormation cannot create a secret without a value, and a generated one would look like a
      // key: the placeholder is JSON with an empty apiKey, which the functions read as "no key yet"
      // (questions get 503 saying to store it, health says degraded). It holds nothing secret.
      this.createdSecret = new Secret(this, 'Secret', {
        description: 'The model API key of the MCP agent service: replace the value with the key (plain text, or JSON {"apiKey": "..."}).',
        secretStringValue: SecretValue.unsafePlainText(JSON.stringify({ apiKey: '' })),
        removalPolicy: props.removalPolicy,
      });
      Validations.of(this.createdSecret).acknowledge({ id: 'AwsSolutions::AwsSolutions-SMG4', reason: "The model provider's API key: rotated by whoever issues it (the provider's console), then stored here; Secrets Manager cannot create a provider's key." });
      secretArn = this.createdSecret.secretArn;
    }
    this.environment = { [ENV.modelApiKeySecretArn]: secretArn };
    this.readStatement = new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [secretArn] });
  }
}

/** A name with a leading slash (/a/b) and one without (a) both become parameter/a/b, parameter/a. */
function parameterArn(scope: Construct, name: string): string {
  return Stack.of(scope).formatArn({ service: 'ssm', resource: 'parameter', resourceName: name.replace(/^\//, ''), arnFormat: ArnFormat.SLASH_RESOURCE_NAME });
}
