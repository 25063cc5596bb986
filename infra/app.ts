/**
 * The CDK app (cdk.json: `node infra/app.ts`; Node 22 runs the TypeScript directly). One stack,
 * configured by context keys: see infra/settings.ts, e.g. `npx cdk deploy -c authMode=cognito`.
 * No account or region is fixed here: the stack deploys wherever the CLI's credentials point.
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { settingsFromContext } from './context.ts';
import { McpAgentStack } from './stack.ts';

const STACK_ID = 'McpAgent';

const app = new App();
new McpAgentStack(app, STACK_ID, {
  description: 'MCP agent service: an OpenAI-compatible model using MCP tools, conversations in DynamoDB',
  settings: settingsFromContext(app.node),
});
// cdk-nag's AWS Solutions checks on every synth: a finding stops it unless it is fixed or
// acknowledged beside its resource with the reason it stays (test/unit/stack-nag.test.ts).
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();
