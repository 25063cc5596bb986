/** The stack's CloudFormation template for given settings, as `cdk synth` builds it (asset bundling skipped). */
import { mkdtempSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { expect } from 'vitest';
import { McpAgentStack } from '../../infra/stack.ts';
import type { AgentSettings } from '../../infra/settings.ts';
import { temporaryFolder } from './temporary-folder.ts';

const cdkContext = JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')).context;
/**
 * Where each app writes its cloud assembly when synthesized (else CDK makes a cdk.out folder in /tmp
 * and leaves it): one folder per app, all under one made as the test file loads and removed after
 * its tests, since a stack built in one test may be synthesized in another.
 */
const assemblies = temporaryFolder('stack-template-');
const stacks = new Map<string, McpAgentStack>();
const templates = new Map<string, Template>();

/**
 * A new stack for these settings, with cdk.json's context (what the environment holds now counts);
 * in one account and region when `env` names them, so ARNs come out as plain text.
 */
export function buildStack(settings: AgentSettings = {}, env?: { account: string; region: string }): McpAgentStack {
  const app = new App({ outdir: mkdtempSync(join(assemblies, 'app-')), context: { ...cdkContext, 'aws:cdk:bundling-stacks': [] } });
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
