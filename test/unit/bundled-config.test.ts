import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bundledConfig } from '../../infra/bundled-config.ts';
import { parseConfig } from '../../lib/config/load.ts';
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
    expect(bundledConfig('', 'agent.yml')).toBe('{}\n');
  });
});

describe('the JSON-only YAML parser of the Lambda bundles', () => {
  it('says the bundle reads JSON when AGENT_CONFIG names a YAML file', () => {
    expect(() => parseJsonOnly('maxRounds: 4')).toThrow(/reads its configuration as JSON.*AGENT_CONFIG/);
  });
});
