/**
 * How the stack asks NodejsFunction to bundle: the settings, the packages the functions get in a
 * smaller form, and the command hooks that add the configuration and the demo server.
 * test/integration/synth.test.ts runs these commands for real.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_FUNCTION_BUNDLE,
  ESM_REQUIRE_BANNER,
  PROJECT_ROOT,
  agentConfigPath,
  esbuildArguments,
  esbuildBuildOptions,
  functionBuildOptions,
  functionBundling,
  functionSubstitutes,
  shellQuote,
} from '../../infra/bundling.ts';
import { usesMcpRemote } from '../../infra/mcp-remote.ts';
import { temporaryFolder } from '../support/temporary-folder.ts';

const substitute = (file: string) => path.join(PROJECT_ROOT, 'functions', 'substitutes', file);

describe('functionBundling', () => {
  const bundling = functionBundling(agentConfigPath('agent.yml'));

  it('bundles minified ESM for Node 22 with the local esbuild, the AWS SDK included, no source map', () => {
    expect(bundling).toMatchObject({
      forceDockerBundling: false,
      format: 'esm',
      target: 'node22',
      mainFields: ['module', 'main'],
      minify: true,
      sourceMap: false,
      bundleAwsSDK: true,
      banner: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);",
    });
    expect(bundling).not.toHaveProperty('externalModules');
  });

  it('gives the functions JSON for YAML, environment credentials, the smaller stand-ins, and no SSM client unless the model key is in SSM', () => {
    const always = [
      `yaml=${substitute('json-only-yaml.ts')}`,
      `#config-validation=${substitute('config-validation-beside.ts')}`,
      `#ajv-compilers=${substitute('ajv-compilers-beside.ts')}`,
      `ajv=${substitute('without-ajv.ts')}`,
      `@aws-sdk/credential-provider-node=${substitute('environment-credentials.ts')}`,
      `ajv-formats=${substitute('without-ajv-formats.ts')}`,
      `cross-spawn=${substitute('linux-spawn.ts')}`,
      `#early-start-handover=${substitute('linux-spawn.ts')}`,
      `mnemonist/lru-cache=${substitute('map-lru-cache.ts')}`,
      `#dynamodb-commands=${substitute('without-dynamodb-commands.ts')}`,
      `#bedrock-provider=${substitute('without-bedrock.ts')}`,
      `@smithy/core/event-streams=${substitute('without-event-streams.ts')}`,
    ];
    const withoutTelemetry = `#telemetry=${substitute('without-telemetry.ts')}`;
    const withoutFiles = [`#files=${substitute('without-files.ts')}`, `#file-stores=${substitute('without-files.ts')}`];
    const withoutFeatures = [
      `#plan-execute=${substitute('without-plan-execute.ts')}`,
      `#reflection=${substitute('without-reflection.ts')}`,
      `#memory-extension=${substitute('without-extensions.ts')}`,
      `#history-summary=${substitute('without-extensions.ts')}`,
      `#todo-list=${substitute('without-extensions.ts')}`,
      `#a2a-door=${substitute('without-a2a-door.ts')}`,
      `#code-interpreter=${substitute('without-code-interpreter.ts')}`,
      `#python-sandbox=${substitute('without-code-interpreter.ts')}`,
      `#deep-search=${substitute('without-deep-search.ts')}`,
      `#ui-streams=${substitute('without-ui-streams.ts')}`,
      `#mcp-server-door=${substitute('without-mcp-server-door.ts')}`,
      `#call-policy=${substitute('without-call-policy.ts')}`,
      `#mcp-oauth-dpop=${substitute('without-mcp-oauth.ts')}`,
      `#mcp-oauth-workload=${substitute('without-mcp-oauth.ts')}`,
      `#mcp-oauth-client=${substitute('without-mcp-oauth.ts')}`,
      `@aws-sdk/client-secrets-manager=${substitute('without-secrets-manager.ts')}`,
      `#on-behalf-of=${substitute('without-on-behalf-of.ts')}`,
      `#mcp-remote=${substitute('without-mcp-remote.ts')}`,
      `#per-user-connections=${substitute('without-per-user-connections.ts')}`,
    ];
    expect(bundling.esbuildArgs).toEqual({ '--alias': [...always, `@aws-sdk/client-ssm=${substitute('without-ssm.ts')}`, withoutTelemetry, ...withoutFiles, ...withoutFeatures] });
    const withSsm = functionBundling(agentConfigPath('agent.yml'), { modelProvider: 'openai', ssmClient: true });
    expect(withSsm.esbuildArgs!['--alias']).toEqual([...always, withoutTelemetry, ...withoutFiles, ...withoutFeatures]);
  });

  it('bundles OpenTelemetry (lib/telemetry.ts and the SDK it loads) only into a stack that exports it', () => {
    const aliases = (telemetry: boolean) => functionBundling(agentConfigPath('agent.yml'), { modelProvider: 'openai', ssmClient: false, telemetry }).esbuildArgs!['--alias'] as string[];
    expect(aliases(false)).toContain(`#telemetry=${substitute('without-telemetry.ts')}`);
    expect(aliases(true).filter((alias) => alias.startsWith('#telemetry='))).toEqual([]);
  });

  it('bundles the files feature, its stores and the S3 client only when agent.yml turns files on', () => {
    expect(functionSubstitutes({ modelProvider: 'openai', ssmClient: false })).toMatchObject({ '#files': substitute('without-files.ts'), '#file-stores': substitute('without-files.ts') });
    expect(functionSubstitutes({ modelProvider: 'openai', ssmClient: false, files: true })).not.toHaveProperty('#files');
    expect(functionSubstitutes({ modelProvider: 'openai', ssmClient: false, files: true })).not.toHaveProperty('#file-stores');
  });

  it('bundles plan-execute, the reflection strategies and the code interpreter only when agent.yml runs them', () => {
    const none = functionSubstitutes({ modelProvider: 'openai', ssmClient: false });
    expect(none).toMatchObject({ '#plan-execute': substitute('without-plan-execute.ts'), '#reflection': substitute('without-reflection.ts'), '#code-interpreter': substitute('without-code-interpreter.ts'), '#python-sandbox': substitute('without-code-interpreter.ts') });
    expect(functionSubstitutes({ modelProvider: 'openai', ssmClient: false, planExecute: true })).not.toHaveProperty('#plan-execute');
    expect(functionSubstitutes({ modelProvider: 'openai', ssmClient: false, reflection: true })).not.toHaveProperty('#reflection');
    const withCode = functionSubstitutes({ modelProvider: 'openai', ssmClient: false, codeInterpreter: true });
    expect(withCode).not.toHaveProperty('#code-interpreter');
    expect(withCode).not.toHaveProperty('#python-sandbox');
  });

  it('bundles DPoP, workload identity, the OAuth client and the Secrets Manager client (the token store) only when agent.yml gives some MCP server an oauth block', () => {
    expect(functionSubstitutes({ modelProvider: 'openai', ssmClient: false })).toMatchObject({ '#mcp-oauth-dpop': substitute('without-mcp-oauth.ts'), '#mcp-oauth-workload': substitute('without-mcp-oauth.ts'), '#mcp-oauth-client': substitute('without-mcp-oauth.ts'), '@aws-sdk/client-secrets-manager': substitute('without-secrets-manager.ts') });
    const withOAuth = functionSubstitutes({ modelProvider: 'openai', ssmClient: false, mcpOAuth: true });
    expect(withOAuth).not.toHaveProperty('#mcp-oauth-dpop');
    expect(withOAuth).not.toHaveProperty('#mcp-oauth-workload');
    expect(withOAuth).not.toHaveProperty('#mcp-oauth-client');
    expect(withOAuth).not.toHaveProperty('@aws-sdk/client-secrets-manager');
  });

  it('bundles the on-behalf-of exchanger only when some MCP server of agent.yml has an auth.mode other than service', () => {
    expect(functionSubstitutes({ modelProvider: 'openai', ssmClient: false })).toMatchObject({ '#on-behalf-of': substitute('without-on-behalf-of.ts') });
    expect(functionSubstitutes({ modelProvider: 'openai', ssmClient: false, onBehalfOf: true })).not.toHaveProperty('#on-behalf-of');
  });

  it('bundles the UI toolkit doors only when agent.yml turns uiStreams on', () => {
    expect(functionSubstitutes({ modelProvider: 'openai', ssmClient: false })).toMatchObject({ '#ui-streams': substitute('without-ui-streams.ts') });
    expect(functionSubstitutes({ modelProvider: 'openai', ssmClient: false, uiStreams: true })).not.toHaveProperty('#ui-streams');
  });

  it('bundles the A2A front door and its SDK only when agent.yml turns a2a on', () => {
    expect(functionSubstitutes({ modelProvider: 'openai', ssmClient: false })).toMatchObject({ '#a2a-door': substitute('without-a2a-door.ts') });
    expect(functionSubstitutes({ modelProvider: 'openai', ssmClient: false, a2a: true })).not.toHaveProperty('#a2a-door');
  });

  it('bundles the MCP client over HTTP only when agent.yml names an MCP server with a url', () => {
    expect(functionSubstitutes({ modelProvider: 'openai', ssmClient: false })).toMatchObject({ '#mcp-remote': substitute('without-mcp-remote.ts') });
    expect(functionSubstitutes({ modelProvider: 'openai', ssmClient: false, mcpRemote: true })).not.toHaveProperty('#mcp-remote');
    const yml = (name: string, text: string) => {
      const file = path.join(temporaryFolder('mcp-remote-'), name);
      writeFileSync(file, text);
      return file;
    };
    expect(usesMcpRemote(agentConfigPath('agent.yml'))).toBe(false);
    expect(usesMcpRemote(yml('a.yml', 'mcpServers:\n  local: { command: node, args: [server.js] }\n'))).toBe(false);
    expect(usesMcpRemote(yml('b.yml', 'mcpServers:\n  local: { command: node }\n  docs: { url: https://docs.example/mcp }\n'))).toBe(true);
    expect(usesMcpRemote(yml('c.yml', 'mcpServers:\n  docs: ${DOCS_SERVER}\n'))).toBe(true);
    expect(usesMcpRemote(yml('d.yml', 'mcpServers: ${SERVERS}\n'))).toBe(true);
    expect(usesMcpRemote(yml('e.yml', 'maxRounds: 4\n'))).toBe(false);
  });

  it('gives a Bedrock function the Bedrock provider and event streams, and leaves out the OpenAI-compatible provider and SSO bearer tokens', () => {
    const aliasArguments = functionBundling(agentConfigPath('agent.yml'), { modelProvider: 'bedrock', ssmClient: false }).esbuildArgs!['--alias'] as string[];
    const aliases = Object.fromEntries(aliasArguments.map((alias) => alias.split('=') as [string, string]));
    expect(aliases).not.toHaveProperty('#bedrock-provider');
    expect(aliases).not.toHaveProperty('@smithy/core/event-streams');
    expect(aliases).toMatchObject({
      '#openai-provider': substitute('without-openai.ts'),
      '@aws-sdk/token-providers': substitute('environment-bearer-token.ts'),
      '@aws-sdk/credential-provider-node': substitute('environment-credentials.ts'),
      yaml: substitute('json-only-yaml.ts'),
    });
  });

  it('gives a function on the offline demo model neither model provider', () => {
    const aliases = functionSubstitutes({ modelProvider: 'demo', ssmClient: false });
    expect(aliases).toMatchObject({ '#openai-provider': substitute('without-openai.ts'), '#bedrock-provider': substitute('without-bedrock.ts') });
  });

  it('writes agent.yml as agent.json after bundling, its validation and Ajv beside it, and nothing else when agent.yml does not start the demo server', () => {
    expect(bundling.commandHooks!.afterBundling('/project', '/output')).toEqual([
      `${shellQuote(process.execPath)} '/project/infra/bundled-config.ts' '/project/agent.yml' '/output/agent.json'`,
      "'/project/node_modules/.bin/esbuild' '--bundle' '/project/lib/config/validate.ts' '--outfile=/output/config-validation.cjs' '--platform=node' '--format=cjs' '--target=node22' '--minify' '--log-level=warning'",
      "'/project/node_modules/.bin/esbuild' '--bundle' '/project/lib/json-schema/ajv-compilers.ts' '--outfile=/output/ajv-compilers.cjs' '--platform=node' '--format=cjs' '--target=node22' '--minify' '--log-level=warning'",
    ]);
  });

  it('builds the demo server into the output directory when agent.yml starts it', () => {
    const withDemo = functionBundling(agentConfigPath('agent.yml'), { modelProvider: 'openai', ssmClient: false, demoServer: true });
    const [config, , demoServer] = withDemo.commandHooks!.afterBundling('/project', '/output');
    expect(config).toBe(`${shellQuote(process.execPath)} '/project/infra/bundled-config.ts' '/project/agent.yml' '/output/agent.json'`);
    expect(demoServer).toContain("'/project/node_modules/.bin/esbuild' '--bundle' '/project/lib/demo/server.ts' '--outfile=/output/demo-server.mjs'");
    expect(demoServer).toContain("'--define:import.meta.main=true'");
    expect(demoServer).toContain(shellQuote(`--banner:js=${ESM_REQUIRE_BANNER}`));
    expect(demoServer).not.toContain('--sourcemap');
  });

  it('writes another agent.yml, under the bundled name, when agentConfig names one', () => {
    const folder = temporaryFolder('agent-config-');
    const file = path.join(folder, 'production.yml');
    writeFileSync(file, 'maxRounds: 4\n');
    const custom = functionBundling(agentConfigPath(file));
    const source = path.join('/project', path.relative(PROJECT_ROOT, file));
    expect(custom.commandHooks!.afterBundling('/project', '/output')[0]).toBe(`${shellQuote(process.execPath)} '/project/infra/bundled-config.ts' '${source}' '/output/agent.json'`);
  });
});

describe('esbuild settings', () => {
  it('are the same for the command line and the JavaScript API', () => {
    const options = esbuildBuildOptions('entry.ts', 'out/index.mjs');
    expect(options).toMatchObject({ bundle: true, platform: 'node', format: 'esm', target: 'node22', minify: true, mainFields: ['module', 'main'], banner: { js: ESM_REQUIRE_BANNER } });
    expect(options).not.toHaveProperty('sourcemap');
    expect(esbuildArguments('entry.ts', 'out/index.mjs')).toEqual([
      '--bundle', 'entry.ts', '--outfile=out/index.mjs', '--platform=node', '--format=esm', '--target=node22',
      '--main-fields=module,main', '--minify', `--banner:js=${ESM_REQUIRE_BANNER}`, '--log-level=warning',
    ]);
  });

  it('give a function the same substitutes through the JavaScript API as through the stack', () => {
    expect(functionBuildOptions('entry.ts', 'out/index.mjs').alias).toEqual(functionSubstitutes(DEFAULT_FUNCTION_BUNDLE));
    expect(Object.entries(functionSubstitutes(DEFAULT_FUNCTION_BUNDLE)).map(([name, file]) => `${name}=${file}`)).toEqual(functionBundling(agentConfigPath('agent.yml')).esbuildArgs!['--alias']);
  });
});

describe('shellQuote', () => {
  it('passes any argument through the shell unchanged', () => {
    const argument = `--banner:js=import { x } from 'y'; $HOME "quoted" \`tick\``;
    expect(execFileSync('bash', ['-c', `printf %s ${shellQuote(argument)}`], { encoding: 'utf8' })).toBe(argument);
  });
});

describe('agentConfigPath', () => {
  it('resolves against the repository root', () => {
    expect(agentConfigPath('agent.yml')).toBe(path.join(PROJECT_ROOT, 'agent.yml'));
    const folder = temporaryFolder('agent-config-');
    expect(() => agentConfigPath(path.join(folder, 'absent.yml'))).toThrow(/context agentConfig: .*absent\.yml does not exist/);
    expect(readFileSync(agentConfigPath('agent.yml'), 'utf8')).toContain('mcpServers:');
  });
});
