/**
 * How the stack asks NodejsFunction to bundle, and the command hooks that add agent.yml and the demo
 * server. test/integration/synth.test.ts runs these commands for real.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ESM_REQUIRE_BANNER, PROJECT_ROOT, agentConfigPath, esbuildArguments, esbuildBuildOptions, functionBundling, shellQuote } from '../../infra/bundling.ts';

describe('functionBundling', () => {
  const bundling = functionBundling(agentConfigPath('agent.yml'));

  it('bundles ESM for Node 22 with the local esbuild, minified with source maps, the AWS SDK included', () => {
    expect(bundling).toMatchObject({
      forceDockerBundling: false,
      format: 'esm',
      target: 'node22',
      mainFields: ['module', 'main'],
      minify: true,
      sourceMap: true,
      sourcesContent: false,
      bundleAwsSDK: true,
      banner: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);",
    });
    expect(bundling).not.toHaveProperty('externalModules');
  });

  it('copies agent.yml and builds the demo server into the output directory after bundling', () => {
    const [copy, demoServer] = bundling.commandHooks!.afterBundling('/project', '/output');
    expect(copy).toBe("'cp' '/project/agent.yml' '/output/agent.yml'");
    expect(demoServer).toContain("'/project/node_modules/.bin/esbuild' '--bundle' '/project/lib/demo/server.ts' '--outfile=/output/demo-server.mjs'");
    expect(demoServer).toContain("'--define:import.meta.main=true'");
    expect(demoServer).toContain(shellQuote(`--banner:js=${ESM_REQUIRE_BANNER}`));
  });

  it('copies another agent.yml, under the bundled name, when agentConfig names one', () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'agent-config-'));
    const file = path.join(folder, 'production.yml');
    writeFileSync(file, 'maxRounds: 4\n');
    const custom = functionBundling(agentConfigPath(file));
    const source = path.join('/project', path.relative(PROJECT_ROOT, file));
    expect(custom.commandHooks!.afterBundling('/project', '/output')[0]).toBe(`'cp' '${source}' '/output/agent.yml'`);
  });
});

describe('esbuild settings', () => {
  it('are the same for the command line and the JavaScript API', () => {
    const options = esbuildBuildOptions('entry.ts', 'out/index.mjs');
    expect(options).toMatchObject({ bundle: true, platform: 'node', format: 'esm', target: 'node22', minify: true, sourcemap: true, sourcesContent: false, mainFields: ['module', 'main'], banner: { js: ESM_REQUIRE_BANNER } });
    expect(esbuildArguments('entry.ts', 'out/index.mjs')).toEqual([
      '--bundle', 'entry.ts', '--outfile=out/index.mjs', '--platform=node', '--format=esm', '--target=node22',
      '--main-fields=module,main', '--minify', '--sourcemap', '--sources-content=false', `--banner:js=${ESM_REQUIRE_BANNER}`, '--log-level=warning',
    ]);
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
    const folder = mkdtempSync(path.join(tmpdir(), 'agent-config-'));
    expect(() => agentConfigPath(path.join(folder, 'absent.yml'))).toThrow(/context agentConfig: .*absent\.yml does not exist/);
    expect(readFileSync(agentConfigPath('agent.yml'), 'utf8')).toContain('mcpServers:');
  });
});
