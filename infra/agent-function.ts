import path from 'node:path';
import { type Duration, type RemovalPolicy, Validations } from 'aws-cdk-lib';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, type BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { PROJECT_ROOT } from './bundling.ts';
import { FUNCTION_NODE_OPTIONS } from './function-runtime.ts';
import { ENV } from '../lib/config/environment.ts';

export interface AgentFunctionProps {
  /** The entry file, relative to the repository root; it exports `handler`. */
  entry: string;
  description: string;
  memorySize: number;
  timeout: Duration;
  environment: Record<string, string>;
  bundling: BundlingOptions;
  /** Applies to the log group. */
  removalPolicy: RemovalPolicy;
}

/**
 * One Lambda function of the service: Node.js 22 on ARM64 (Graviton: about 20% cheaper per
 * GB-second than x86 for the same work, and nothing here is native code), bundled by esbuild,
 * traced by X-Ray, logging to its own log group with a retention, so logs do not pile up forever.
 */
export class AgentFunction extends Construct {
  readonly function: NodejsFunction;
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: AgentFunctionProps) {
    super(scope, id);
    // Created here rather than left to Lambda: Lambda's implicit group never expires and outlives the stack.
    this.logGroup = new LogGroup(this, 'Logs', { retention: RetentionDays.ONE_MONTH, removalPolicy: props.removalPolicy });
    this.function = new NodejsFunction(this, 'Function', {
      entry: path.join(PROJECT_ROOT, props.entry),
      handler: 'handler',
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: path.join(PROJECT_ROOT, 'package-lock.json'),
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      description: props.description,
      memorySize: props.memorySize,
      timeout: props.timeout,
      tracing: Tracing.ACTIVE,
      logGroup: this.logGroup,
      bundling: props.bundling,
      // The runtime's Node options (infra/function-runtime.ts) go with its version.
      environment: { [ENV.nodeOptions]: FUNCTION_NODE_OPTIONS, ...props.environment },
    });
    // cdk-nag (infra/app.ts runs AwsSolutionsChecks on every synth): what it flags here, and why it stays.
    Validations.of(this.function).acknowledge(
      { id: 'AwsSolutions::AwsSolutions-L1', reason: 'Node.js 22 on purpose: the runtime the tests run on (package.json engines); a newer runtime is adopted after the suite passes on it.' },
      {
        id: 'AwsSolutions::AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
        reason: "Lambda's standard logging policy (CreateLogGroup, CreateLogStream, PutLogEvents); the function logs to its own log group.",
      },
      { id: 'AwsSolutions::AwsSolutions-IAM5[Resource::*]', reason: 'X-Ray tracing (Tracing.ACTIVE): xray:PutTraceSegments and PutTelemetryRecords have no resource-level permissions, so IAM requires Resource *.' },
    );
  }
}
