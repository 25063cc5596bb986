/** The stack's CloudFormation template for given settings, as `cdk synth` builds it (asset bundling skipped). */
import { readFileSync } from 'node:fs';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { expect } from 'vitest';
import { McpAgentStack } from '../../infra/stack.ts';
import type { AgentSettings } from '../../infra/settings.ts';

const cdkContext = JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')).context;
const stacks = new Map<string, McpAgentStack>();
const templates = new Map<string, Template>();

/**
 * A new stack for these settings, with cdk.json's context (what the environment holds now counts);
 * in one account and region when `env` names them, so ARNs come out as plain text.
 */
export function buildStack(settings: AgentSettings = {}, env?: { account: string; region: string }): McpAgentStack {
  const app = new App({ context: { ...cdkContext, 'aws:cdk:bundling-stacks': [] } });
  return new McpAgentStack(app, 'Agent', { settings, ...(env ? { env } : {}) });
}

/** The stack for these settings, built once per settings. */
export function stackFor(settings: AgentSettings = {}): McpAgentStack {
  const key = JSON.stringify(settings);
  if (!stacks.has(key)) stacks.set(key, buildStack(settings));
  return stacks.get(key)!;
}

export function templateFor(settings: AgentSettings = {}): Template {
  const key = JSON.stringify(settings);
  if (!templates.has(key)) templates.set(key, Template.fromStack(stackFor(settings)));
  return templates.get(key)!;
}

/** The logical id of the one resource of `type` whose id starts with `prefix`. */
export function logicalId(template: Template, type: string, prefix: string): string {
  const ids = Object.keys(template.findResources(type)).filter((id) => id.startsWith(prefix));
  expect(ids).toHaveLength(1);
  return ids[0]!;
}

/** The environment variables of one of the three functions (Stream, Worker, HealthAndFallbacks). */
export function environmentOf(template: Template, name: string): Record<string, unknown> {
  const id = logicalId(template, 'AWS::Lambda::Function', `Functions${name}Function`);
  return (template.toJSON().Resources[id] as { Properties: { Environment: { Variables: Record<string, unknown> } } }).Properties.Environment.Variables;
}
