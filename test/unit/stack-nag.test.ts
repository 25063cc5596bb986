/**
 * cdk-nag's AWS Solutions checks pass on the stack in each shape it deploys in (every auth mode,
 * each home of the model key, Bedrock with a profile and with an application profile): a finding
 * either is fixed or is acknowledged beside its resource with the reason it stays. `npm run synth`
 * runs the same checks (infra/app.ts), so a new finding stops a deploy too.
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import type { AgentSettings } from '../../infra/settings.ts';
import { McpAgentStack } from '../../infra/stack.ts';
import { temporaryFolder } from '../support/temporary-folder.ts';

const SHAPES: Array<[string, AgentSettings]> = [
  ['the defaults (iam, a created key secret)', {}],
  ['cognito with a created user pool', { authMode: 'cognito' }],
  ['authMode none', { authMode: 'none' }],
  ['oidc (a Lambda authorizer) with the MCP server door and A2A', { authMode: 'oidc', oidcIssuer: 'https://login.example.com/oauth2/default', oidcAudience: 'api://mcp-agent', agentConfig: 'test/fixtures/mcp-door-a2a-agent.yml' }],
  ['cognito with the MCP server door and A2A (public protected resource metadata beside the agent card)', { authMode: 'cognito', agentConfig: 'test/fixtures/mcp-door-a2a-agent.yml' }],
  ['the key in SSM', { modelApiKeyParameterName: '/mcp-agent/model-api-key' }],
  ['files on (their S3 bucket)', { agentConfig: 'test/fixtures/files-agent.yml' }],
  ['cognito with a per-user server (its KMS key, its callback route open to browsers)', { authMode: 'cognito', agentConfig: 'test/fixtures/per-user-agent.yml' }],
  ['Bedrock through a geographic inference profile', { modelProvider: 'bedrock', modelName: 'eu.anthropic.claude-sonnet-4-5-20250929-v1:0' }],
  ['Bedrock through an application inference profile', { modelProvider: 'bedrock', modelName: 'arn:aws:bedrock:eu-west-1:123456789012:application-inference-profile/a1b2c3' }],
];

function findings(settings: AgentSettings): string {
  const app = new App({ outdir: temporaryFolder('stack-nag-'), context: { 'aws:cdk:bundling-stacks': [] } });
  new McpAgentStack(app, 'Agent', { settings });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  const printed: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  // The report goes to the console as it is found; keep it for the assertion's message.
  process.stderr.write = ((chunk: string | Uint8Array) => (printed.push(String(chunk)), true)) as typeof process.stderr.write;
  try {
    app.synth();
    return '';
  } catch (error) {
    return `${(error as Error).message}\n${printed.join('')}`;
  } finally {
    process.stderr.write = write;
  }
}

describe('cdk-nag AwsSolutionsChecks', () => {
  it.each(SHAPES)('finds nothing unacknowledged in %s', (_shape, settings) => {
    expect(findings(settings)).toBe('');
  }, 120_000);
});
