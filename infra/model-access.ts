import { Stack, Validations } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { BEDROCK_INVOKE_ACTIONS, bedrockGrants } from './bedrock-access.ts';
import type { AgentSettings, ModelProvider } from './settings.ts';
import { agentFile } from './agent-file.ts';

/** The model the functions will call, as the stack can know it: context first, then agent.yml as written (the region only there). */
export interface DeployedModel {
  provider: ModelProvider;
  name?: string;
  region?: string;
}

/**
 * agent.yml's `model.provider`, `model.name` and `model.region`, read as written; a `${VAR:-default}`
 * placeholder counts as its default, and one without a default as unknown (the context key then
 * has to say it, or the synth cannot grant the model).
 */
export function deployedModel(agentConfigFile: string, settings: Pick<AgentSettings, 'modelProvider' | 'modelName'>): DeployedModel {
  const document = agentFile(agentConfigFile) as { model?: Record<string, unknown> };
  const written = (key: string): string | undefined => {
    const value = document?.model?.[key];
    if (typeof value !== 'string') return undefined;
    const placeholder = /^\$\{[A-Z0-9_]+(?::-(.*))?\}$/.exec(value.trim());
    return placeholder ? placeholder[1] || undefined : value.trim();
  };
  const provider = settings.modelProvider ?? (written('provider') as ModelProvider | undefined) ?? 'openai';
  const name = settings.modelName ?? written('name');
  const region = written('region');
  return { provider, ...(name ? { name } : {}), ...(region ? { region } : {}) };
}

/**
 * The statements that let a function invoke exactly the configured Bedrock model (infra/bedrock-access.ts):
 * bedrock:InvokeModel and InvokeModelWithResponseStream, which Converse and ConverseStream are
 * authorized by, on the model or profile and the foundation models behind a profile.
 */
export function bedrockInvokeStatements(scope: Construct, model: DeployedModel, routesTo?: readonly string[]): PolicyStatement[] {
  if (!model.name) throw new Error('model.provider is bedrock but no model is named: set model.name in agent.yml or the context key modelName (a model id, an inference profile id or an ARN)');
  const stack = Stack.of(scope);
  const grants = bedrockGrants({ model: model.name, region: model.region ?? stack.region, account: stack.account, partition: stack.partition, ...(routesTo ? { routesTo } : {}) });
  return grants.map(
    (grant) =>
      new PolicyStatement({
        actions: [...BEDROCK_INVOKE_ACTIONS],
        resources: grant.resources,
        ...(grant.throughProfile ? { conditions: { StringEquals: { 'bedrock:InferenceProfileArn': grant.throughProfile } } } : {}),
      }),
  );
}

/**
 * An application inference profile's ARN does not name its models, so its grant covers any
 * foundation model, only through that profile (the statement's condition): cdk-nag's wildcard
 * finding is acknowledged for that statement alone.
 */
export function acknowledgeProfileModels(scope: Construct, statements: PolicyStatement[]): void {
  const wildcards = statements.flatMap((statement) => statement.resources).filter((resource) => resource.includes('*'));
  for (const resource of wildcards) {
    Validations.of(scope).acknowledge({
      id: `AwsSolutions::AwsSolutions-IAM5[Resource::${resource.replace(/^arn:[^:]+:/, 'arn:<AWS::Partition>:')}]`,
      reason: 'An application inference profile does not name its models: any foundation model, but only invoked through that profile (condition bedrock:InferenceProfileArn).',
    });
  }
}
