/**
 * Embedding the agent with the in-memory store (lib/index.ts) loads no AWS SDK module: the DynamoDB
 * adapters load the document client's commands when they first send one (lib/adapters/dynamodb/
 * commands.ts), which is most of the memory the project's process used beyond a hand-written loop.
 * A fresh Node process records every module it loads.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../support/mcp-servers.ts';

const run = promisify(execFile);

const PROGRAM = `
import { registerHooks } from 'node:module';
const loaded = [];
registerHooks({ resolve(specifier, context, next) { const result = next(specifier, context); loaded.push(result.url); return result; } });
const { buildAgent, createMemoryConversationStore, parseConfig } = await import('./lib/index.ts');
const agent = buildAgent(parseConfig('{}', { source: 'test', environment: {} }), { store: createMemoryConversationStore() });
await agent.close();
console.log(JSON.stringify(loaded.filter((url) => url.includes('/@aws-sdk/'))));
`;

describe('the programmatic entry with the in-memory store', () => {
  it('loads no AWS SDK module', async () => {
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', PROGRAM], { cwd: PROJECT_ROOT, timeout: 60_000 });

    expect(JSON.parse(stdout.trim().split('\n').at(-1)!)).toEqual([]);
  });
});
