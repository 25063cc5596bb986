import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bundledConfig } from '../../infra/bundled-config.ts';
import { parseConfig } from '../../lib/config/load.ts';
import { PREVALIDATED_KEY } from '../../lib/config/prevalidated.ts';
import { parse as parseJsonOnly } from '../../functions/substitutes/json-only-yaml.ts';

const source = '/var/task/agent.json';

describe('bundledConfig (agent.yml as the Lambda bundles carry it)', () => {
  it('gives the same configuration as the YAML, read by the functions’ JSON-only parser', () => {
    const yaml = readFileSync(new URL('../../agent.yml', import.meta.url), 'utf8');
    const json = bundledConfig(yaml, 'agent.yml');
    const environment = { DEMO_MCP_SERVER: 'demo-server.mjs' };

    expect(parseJsonOnly(json)).toEqual(JSON.parse(json));
    expect(parseConfig(json, { source, environment })).toEqual(parseConfig(yaml, { source, environment }));
  });

  it('keeps ${VAR} placeholders, and $$, for the function’s environment to fill in at cold start', () => {
    const yaml = ['# a comment', 'maxRounds: ${MAX_ROUNDS:-4}', 'model:', '  name: ${MODEL}', 'systemPrompt: costs $$5 &anchor', 'mcpServers: {}', ''].join('\n');
    const json = bundledConfig(yaml, 'agent.yml');

    expect(JSON.parse(json)).toEqual({ maxRounds: '${MAX_ROUNDS:-4}', model: { name: '${MODEL}' }, systemPrompt: 'costs $$5 &anchor', mcpServers: {} });
    const config = parseConfig(json, { source, environment: { MODEL: 'qwen2.5' } });
    expect(config).toMatchObject({ maxRounds: 4, model: { name: 'qwen2.5' }, systemPrompt: 'costs $5 &anchor' });
  });

  it('stops the build on a file that is not YAML, or not a mapping', () => {
    expect(() => bundledConfig('maxRounds: [1, 2', 'agent.yml')).toThrow(/agent\.yml is not valid YAML/);
    expect(() => bundledConfig('- a\n- b\n', 'agent.yml')).toThrow(/agent\.yml must be a YAML mapping/);
    expect(Object.keys(JSON.parse(bundledConfig('', 'agent.yml')))).toEqual([PREVALIDATED_KEY]);
  });
});

describe('the JSON-only YAML parser of the Lambda bundles', () => {
  it('says the bundle reads JSON when AGENT_CONFIG names a YAML file', () => {
    expect(() => parseJsonOnly('maxRounds: 4')).toThrow(/reads its configuration as JSON.*AGENT_CONFIG/);
  });
});

describe('bundledConfig’s validation (the functions take agent.json as the build validated it)', () => {
  const validated = (yaml: string) => PREVALIDATED_KEY in JSON.parse(bundledConfig(yaml, 'agent.yml'));
  const failure = (run: () => unknown) => {
    try {
      run();
    } catch (error) {
      return (error as Error).message;
    }
    throw new Error('expected a failure');
  };

  it('stops the build on an invalid agent.yml with the message the function would have given', () => {
    for (const yaml of [
      'maxRound: 4\n',
      'model: { temperature: 3 }\n',
      'mcpServers:\n  docs: { headers: { A: b } }\n',
      'mcpServers:\n  docs:\n    url: https://docs.example/mcp\n    oauth: { clientId: agent, clientSecret: written-here, authorizationServer: https://login.example }\n',
    ]) {
      expect(failure(() => bundledConfig(yaml, 'agent.yml'))).toBe(failure(() => parseConfig(yaml, { source: 'agent.yml', environment: {} })));
    }
  });

  it('validates a document whose placeholders any text satisfies: a stdio server’s args, env and cwd', () => {
    expect(validated('mcpServers:\n  local: { command: node, args: ["${SCRIPT:-server.js}", "$$HOME"], env: { TOKEN: "${TOKEN}" }, cwd: "${FOLDER}" }\n')).toBe(true);
    expect(validated('maxRounds: 4\n')).toBe(true);
  });

  it('leaves to the function a document with a placeholder the schema must check', () => {
    expect(validated('maxRounds: ${MAX_ROUNDS:-4}\n')).toBe(false);
    expect(validated('systemPrompt: ${PROMPT}\n')).toBe(false);
    expect(validated('mcpServers:\n  local: { command: "${NODE}" }\n')).toBe(false);
    expect(validated('mcpServers:\n  docs: { url: "${DOCS_URL}" }\n')).toBe(false);
    // A remote entry is refined as a whole: no value in it is taken as any text.
    expect(validated('mcpServers:\n  docs: { url: https://docs.example/mcp, headers: { X-Key: "${KEY}" } }\n')).toBe(false);
  });
});
