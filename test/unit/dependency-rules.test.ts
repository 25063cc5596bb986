/**
 * The dependency rules (.dependency-cruiser.cjs) are allow-lists, so they also check folders that
 * do not exist yet. In a temporary copy of lib/, functions/ and infra/, probe files break them the
 * ways a newcomer could: a new folder that imports an SDK and is imported by the agent, the agent
 * importing an SDK itself or a strategy or an extension, a file of the agent reading agent.yml's type
 * (only agent.ts and settings.ts do), an adapter calling the agent or the queue worker or reading
 * agent.yml's type (adapters declare their own options), the core importing the configuration, a
 * front door reaching another door, lib/http using an SDK or a door. A front door serving its
 * protocol with that protocol's SDK is allowed. The check must name each one, and nothing else.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../support/mcp-servers.ts';

const run = promisify(execFile);

const PROBES: Record<string, string> = {
  'lib/zz-probe/probe.ts': `import { Client } from '@modelcontextprotocol/sdk/client/index.js';\nexport const probe = Client;\n`,
  'lib/agent/zz-uses-probe.ts': `import { probe } from '../zz-probe/probe.ts';\nexport const usesProbe = probe;\n`,
  'lib/agent/zz-uses-openai.ts': `import OpenAI from 'openai';\nexport const client = OpenAI;\n`,
  'lib/adapters/zz-new/calls-agent.ts': `import { createAgent } from '../../agent/agent.ts';\nexport const agent = createAgent;\n`,
  'lib/adapters/zz-new/reads-config.ts': `import type { AgentConfig } from '../../config/load.ts';\nexport type Probe = AgentConfig['conversation'];\n`,
  'lib/adapters/zz-new/uses-queue.ts': `import { redeliveryByQueue } from '../../queue/redelivery.ts';\nexport const byQueue = redeliveryByQueue;\n`,
  'lib/agent/zz-uses-strategy.ts': `import { reactStrategy } from '../strategies/react.ts';\nexport const strategy = reactStrategy;\n`,
  'lib/agent/loop/zz-uses-extension.ts': `import { todoListExtension } from '../../extensions/todo-list.ts';\nexport const extension = todoListExtension;\n`,
  'lib/agent/turn/zz-reads-config.ts': `import type { AgentConfig } from '../../config/load.ts';\nexport type Probe = AgentConfig;\n`,
  'lib/core/zz-reads-config.ts': `import type { AgentConfig } from '../config/load.ts';\nexport type Probe = AgentConfig;\n`,
  // A front door may serve its protocol with that protocol's SDK (the MCP server door, the A2A door) and lib/http's machinery…
  'lib/front-doors/zz-mcp-server/door.ts': `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';\nimport { json } from '../../http/errors.ts';\nexport const door = { McpServer, json };\n`,
  // …but never another door (doors are peers), and lib/http, which every door shares, uses no SDK and knows no door.
  'lib/front-doors/zz-mcp-server/uses-native.ts': `import { nativeFrontDoor } from '../native/door.ts';\nexport const native = nativeFrontDoor;\n`,
  'lib/http/zz-uses-sdk.ts': `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';\nexport const server = McpServer;\n`,
  'lib/http/zz-uses-door.ts': `import { nativeFrontDoor } from '../front-doors/native/door.ts';\nexport const native = nativeFrontDoor;\n`,
  'lib/agent/zz-uses-front-door.ts': `import { nativeFrontDoor } from '../front-doors/native/door.ts';\nexport const native = nativeFrontDoor;\n`,
};

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
}

let copy: string;

beforeAll(async () => {
  copy = await mkdtemp(join(tmpdir(), 'dependency-rules-'));
  for (const entry of ['lib', 'functions', 'infra', 'tsconfig.json', 'package.json', '.dependency-cruiser.cjs']) {
    await cp(join(PROJECT_ROOT, entry), join(copy, entry), { recursive: true });
  }
  await symlink(join(PROJECT_ROOT, 'node_modules'), join(copy, 'node_modules'), 'dir');
  // The rules as they are, with node_modules/ seen through the link (its real path is elsewhere).
  await writeFile(join(copy, 'probe-rules.cjs'), `const rules = require('./.dependency-cruiser.cjs');\nmodule.exports = { ...rules, options: { ...rules.options, preserveSymlinks: true } };\n`);
  for (const [path, text] of Object.entries(PROBES)) {
    await mkdir(join(copy, path, '..'), { recursive: true });
    await writeFile(join(copy, path), text);
  }
}, 60_000);

afterAll(async () => {
  if (copy) await rm(copy, { recursive: true, force: true });
});

async function violations(): Promise<Violation[]> {
  const depcruise = join(PROJECT_ROOT, 'node_modules', '.bin', 'depcruise');
  const outcome = await run(depcruise, ['lib', 'functions', 'infra', '--config', 'probe-rules.cjs', '--output-type', 'json'], { cwd: copy, timeout: 120_000, maxBuffer: 64 * 1024 * 1024 }).catch(
    (error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }),
  );
  return (JSON.parse(outcome.stdout) as { summary: { violations: Violation[] } }).summary.violations;
}

describe('the dependency rules', () => {
  it('refuse every probe that breaks them, in folders that did not exist when they were written, and nothing else', async () => {
    // A package is named by its name, not by the file its exports resolve to.
    const named = (path: string) => path.replace(/^node_modules\/((@[^/]+\/)?[^/]+)\/.*$/, 'package $1');
    const found = (await violations()).map(({ from, to }) => `${from} → ${named(to)}`).sort();

    expect(found).toEqual(
      [
        'lib/adapters/zz-new/calls-agent.ts → lib/agent/agent.ts',
        'lib/adapters/zz-new/reads-config.ts → lib/config/load.ts',
        'lib/adapters/zz-new/uses-queue.ts → lib/queue/redelivery.ts',
        'lib/agent/zz-uses-openai.ts → package openai',
        'lib/agent/zz-uses-strategy.ts → lib/strategies/react.ts',
        'lib/agent/loop/zz-uses-extension.ts → lib/extensions/todo-list.ts',
        'lib/agent/turn/zz-reads-config.ts → lib/config/load.ts',
        'lib/agent/zz-uses-probe.ts → lib/zz-probe/probe.ts',
        'lib/core/zz-reads-config.ts → lib/config/load.ts',
        'lib/zz-probe/probe.ts → package @modelcontextprotocol/sdk',
        'lib/front-doors/zz-mcp-server/uses-native.ts → lib/front-doors/native/door.ts',
        'lib/http/zz-uses-sdk.ts → package @modelcontextprotocol/sdk',
        'lib/http/zz-uses-door.ts → lib/front-doors/native/door.ts',
        'lib/agent/zz-uses-front-door.ts → lib/front-doors/native/door.ts',
      ].sort(),
    );
  }, 120_000);
});
