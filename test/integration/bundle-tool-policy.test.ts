/**
 * The tool policy as a Lambda function carries it: the after-bundling commands of a stack whose
 * agent.yml has toolPolicy.cedar (infra/bundling.ts) run for real into a folder, beside the policy
 * code compiled as the functions compile it; then a fresh Node process, with no node_modules
 * anywhere above the folder, loads Cedar and decides a call with what is in it alone. Without a
 * toolPolicy the functions get the substitute, and no Cedar.
 */
import { execFile, execSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT, functionBuildOptions, functionBundling, functionSubstitutes } from '../../infra/bundling.ts';
import { BUNDLED_TOOL_POLICY, CEDAR_WASM_FILE, toolPolicyFiles } from '../../infra/tool-policy.ts';
import { configuredCallPolicy as withoutCallPolicy } from '../../functions/substitutes/without-call-policy.ts';

const run = promisify(execFile);
let source: string;
let folder: string;

beforeAll(async () => {
  source = mkdtempSync(path.join(tmpdir(), 'tool-policy-source-'));
  folder = mkdtempSync(path.join(tmpdir(), 'bundle-tool-policy-'));
  copyFileSync(path.join(PROJECT_ROOT, 'test/fixtures/shop-policies.cedar'), path.join(source, 'shop.cedar'));
  writeFileSync(path.join(source, 'agent.yml'), 'toolPolicy: { cedar: ./shop.cedar }\nmcpServers: {}\n');
  const toolPolicy = toolPolicyFiles(path.join(source, 'agent.yml'))!;
  // The commands take the project as the bundling input; agent.yml is given relative to it.
  const hooks = functionBundling(path.join(source, 'agent.yml'), { modelProvider: 'openai', ssmClient: false, toolPolicy }).commandHooks!;
  for (const command of hooks.afterBundling(PROJECT_ROOT, folder)) execSync(command, { stdio: 'pipe', cwd: PROJECT_ROOT });
  await build(functionBuildOptions(path.join(PROJECT_ROOT, 'lib/configured-call-policy.ts'), path.join(folder, 'index.mjs'), { modelProvider: 'openai', ssmClient: false, toolPolicy }));
}, 120_000);

afterAll(() => {
  for (const made of [source, folder]) if (made) rmSync(made, { recursive: true, force: true });
});

describe('the tool policy in a function bundle', () => {
  it('puts Cedar’s WebAssembly and the policies beside the function, and agent.json names them there', () => {
    expect(existsSync(path.join(folder, CEDAR_WASM_FILE))).toBe(true);
    expect(readFileSync(path.join(folder, BUNDLED_TOOL_POLICY.cedar), 'utf8')).toBe(readFileSync(path.join(source, 'shop.cedar'), 'utf8'));
    expect(JSON.parse(readFileSync(path.join(folder, 'agent.json'), 'utf8')).toolPolicy).toEqual({ cedar: './tool-policy.cedar' });
  });

  it('decides a call from the bundle alone, without node_modules', async () => {
    // Prepare
    const script = path.join(folder, 'run.mjs');
    writeFileSync(script, [
      "import { configuredCallPolicy } from './index.mjs';",
      `const policy = configuredCallPolicy({ toolPolicy: { cedar: ${JSON.stringify(path.join(folder, BUNDLED_TOOL_POLICY.cedar))} } });`,
      "const refund = { name: 'refund', server: 'shop', readOnly: false, destructive: true, parameters: { type: 'object', properties: { amount: { type: 'number' } } } };",
      "console.log(JSON.stringify(policy.decide({ owner: 'a', claims: { groups: ['support'] } }, refund, { amount: 30 })));",
    ].join('\n'));

    // Act
    const { stdout } = await run(process.execPath, [script], { cwd: folder, timeout: 60_000 });

    // Assess
    expect(JSON.parse(stdout)).toEqual({ decision: 'allow', needsApproval: false, policyIds: ['support-refunds'], reasons: [] });
  }, 90_000);

  it('leaves Cedar out of the functions of a configuration without a toolPolicy', () => {
    expect(functionSubstitutes({ modelProvider: 'openai', ssmClient: false })['#call-policy']).toMatch(/functions\/substitutes\/without-call-policy\.ts$/);
    expect(functionSubstitutes({ modelProvider: 'openai', ssmClient: false, toolPolicy: { cedar: '/x.cedar' } })).not.toHaveProperty('#call-policy');
    // A function that finds a policy it was not built for refuses to start rather than ignore it.
    expect(withoutCallPolicy({ toolPolicy: {} })).toBeUndefined();
    expect(() => withoutCallPolicy({ toolPolicy: { cedar: '/var/task/tool-policy.cedar' } })).toThrow(/bundled without the tool policy/);
  });

  it('stops the synth on a policy path it cannot copy: a ${VAR}, or a file that is not there', () => {
    const agentYml = (text: string) => {
      const file = path.join(source, 'other.yml');
      writeFileSync(file, text);
      return file;
    };

    expect(toolPolicyFiles(agentYml('mcpServers: {}\n'))).toBeUndefined();
    expect(() => toolPolicyFiles(agentYml('toolPolicy: { cedar: "${POLICY_FILE}" }\n'))).toThrow(/toolPolicy\.cedar in .* must be a path written out/);
    expect(() => toolPolicyFiles(agentYml('toolPolicy: { cedar: ./missing.cedar }\n'))).toThrow(/toolPolicy\.cedar: .*missing\.cedar does not exist/);
  });
});
