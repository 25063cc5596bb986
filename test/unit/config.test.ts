import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../lib/config/load.ts';
import { DEFAULT_SYSTEM_PROMPT } from '../../lib/config/schema.ts';
import { AGENT_YML_SOURCE, configFailure, parseAgentYml } from '../support/agent-yml.ts';
import { temporaryFolder } from '../support/temporary-folder.ts';


/** A server's tool policy when agent.yml gives none: everything offered, nothing needs approval. */
const NO_POLICY = { denyTools: [], requireApproval: 'never', readResources: false, sampling: false };

describe('parseConfig', () => {
  it('fills every default from an empty file, with the original system prompt', () => {
    const config = parseAgentYml('');
    expect(config.systemPrompt).toBe(DEFAULT_SYSTEM_PROMPT);
    expect(config).toMatchObject({
      maxRounds: 8,
      model: { name: 'gpt-4o-mini', baseURL: 'https://api.openai.com/v1', temperature: 0.7, timeoutSeconds: 60, maxRetries: 2, textToolCalls: false, configured: false, offlineStandIn: false },
      tools: {
        callTimeoutSeconds: 30,
        maxOutputChars: 16_000,
        maxTurnOutputChars: 64_000,
        maxResultBytes: 1_048_576,
        maxCallsPerRound: 16,
        maxCallsPerTurn: 64,
        maxConcurrentCalls: 8,
        reconnectMaxDelaySeconds: 30,
        elicitation: 'decline',
      },
      approvals: { ttlSeconds: 86_400 },
      turn: { timeoutSeconds: 300, reserveSeconds: 3, leaseSeconds: 30, leaseMarginSeconds: 10 },
      history: { maxTokens: 16_000 },
      conversation: { ttlDays: 30 },
      openaiApi: { modelId: 'mcp-agent' },
      limits: { tokensPerTurn: 200_000 },
      mcpServers: [],
    });
  });

  it('reads the bundled agent.yml with the demo server over stdio', () => {
    const config = loadConfig({ path: 'agent.yml', environment: {} });
    expect(config.mcpServers).toEqual([
      { name: 'demo', type: 'stdio', command: 'node', args: ['lib/demo/server.ts'], env: {}, cwd: process.cwd(), ...NO_POLICY },
    ]);
    expect(config.conversation.tableName).toBe('mcp-agent-conversations');
  });

  it('accepts the mcpServers formats of Claude Desktop, Cursor and VS Code', () => {
    const config = parseAgentYml(`
mcpServers:
  files: { command: npx, args: [-y, server-filesystem, /tmp], env: { DEBUG: "1" } }
  vscode-style: { type: stdio, command: node, args: [server.js], cwd: tools }
  remote: { url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer \${TOKEN}" } }
  legacy: { type: sse, url: "https://old.example.com/sse" }
  explicit-http: { type: http, url: "https://new.example.com/mcp" }
`, { TOKEN: 'secret-token' });
    expect(config.mcpServers).toEqual([
      { name: 'files', type: 'stdio', command: 'npx', args: ['-y', 'server-filesystem', '/tmp'], env: { DEBUG: '1' }, cwd: '/etc/agent', ...NO_POLICY },
      { name: 'vscode-style', type: 'stdio', command: 'node', args: ['server.js'], env: {}, cwd: '/etc/agent/tools', ...NO_POLICY },
      { name: 'remote', type: 'auto', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer secret-token' }, ...NO_POLICY },
      { name: 'legacy', type: 'sse', url: 'https://old.example.com/sse', headers: {}, ...NO_POLICY },
      { name: 'explicit-http', type: 'http', url: 'https://new.example.com/mcp', headers: {}, ...NO_POLICY },
    ]);
  });

  it('reads what a server is offered as a client: roots as file:// URIs (paths from agent.yml), elicitation, sampling, resource reads', () => {
    const config = parseAgentYml(`
tools:
  elicitation: defaults
mcpServers:
  files:
    command: node
    args: [server.js]
    roots: [/srv/shared, data, "file:///already/a/uri"]
    readResources: true
    sampling: true
  tickets:
    url: https://mcp.example.com/mcp
    elicitation: ask
`);

    expect(config.tools.elicitation).toBe('defaults');
    expect(config.mcpServers[0]).toMatchObject({
      roots: ['file:///srv/shared', 'file:///etc/agent/data', 'file:///already/a/uri'],
      readResources: true,
      sampling: true,
    });
    expect(config.mcpServers[1]).toMatchObject({ elicitation: 'ask', readResources: false, sampling: false });
    expect(config.mcpServers[1]).not.toHaveProperty('roots');
  });

  it('says what replaced tools.retryFailedAfterSeconds', () => {
    expect(configFailure('tools:\n  retryFailedAfterSeconds: 30')).toContain('tools.retryFailedAfterSeconds: this key was replaced: a failed MCP server is now reconnected in the background with backoff; tools.reconnectMaxDelaySeconds');
  });

  it('refuses a root that is a URI of another scheme, and an unknown elicitation policy', () => {
    expect(configFailure('mcpServers:\n  files:\n    command: node\n    roots: ["https://example.com/x"]')).toContain('a root is a path or a file:// URI');
    expect(configFailure('tools:\n  elicitation: always')).toMatch(/tools\.elicitation/);
  });

  it('limits a turn’s tokens and concurrent turns by default, 0 turning the turn’s limit off, and refuses token limits that are not whole numbers', () => {
    expect(parseAgentYml('').limits).toEqual({ tokensPerTurn: 200_000, concurrentTurnsPerOwner: 4 });
    expect(parseAgentYml('limits: { tokensPerTurn: 0 }').limits).toEqual({ tokensPerTurn: undefined, concurrentTurnsPerOwner: 4 });
    expect(parseAgentYml('limits: { tokensPerTurn: 8000, tokensPerConversation: "${CAP}", tokensPerOwnerPerDay: 1000000, concurrentTurnsPerOwner: 0 }', { CAP: '50000' }).limits).toEqual({
      tokensPerTurn: 8000,
      tokensPerConversation: 50_000,
      tokensPerOwnerPerDay: 1_000_000,
      concurrentTurnsPerOwner: 0,
    });
    expect(configFailure('limits:\n  tokensPerTurn: -1')).toMatch(/limits\.tokensPerTurn/);
    expect(configFailure('limits:\n  tokensPerConversation: 0')).toMatch(/limits\.tokensPerConversation/);
    expect(configFailure('limits:\n  concurrentTurnsPerOwner: 1.5')).toMatch(/limits\.concurrentTurnsPerOwner/);
    expect(configFailure('limits:\n  tokensPerDay: 10')).toMatch(/limits\.tokensPerDay: unknown key/);
  });

  it('lets CONVERSATIONS_TABLE override the table name', () => {
    expect(parseAgentYml('conversation: { tableName: from-file }', { CONVERSATIONS_TABLE: 'from-stack' }).conversation.tableName).toBe('from-stack');
    expect(parseAgentYml('conversation: { tableName: from-file }').conversation.tableName).toBe('from-file');
  });

  it('lets OPENAI_BASE_URL, OPENAI_API_KEY and LLM_MODEL override the model settings', () => {
    const config = parseAgentYml('model: { name: gpt-4o, baseURL: "https://api.openai.com/v1" }', {
      OPENAI_BASE_URL: 'http://localhost:11434/v1',
      OPENAI_API_KEY: 'sk-test',
      LLM_MODEL: 'qwen2.5',
    });
    expect(config.model).toMatchObject({ name: 'qwen2.5', baseURL: 'http://localhost:11434/v1', apiKey: 'sk-test', configured: true });
  });

  it.each([
    ['an API key', { OPENAI_API_KEY: 'sk-test' }, true],
    ['a local endpoint without a key', { OPENAI_BASE_URL: 'http://localhost:8000/v1' }, true],
    ['nothing', {}, false],
  ])('counts the model as configured with %s', (_, environment, configured) => {
    expect(parseAgentYml('', environment).model.configured).toBe(configured);
  });

  it.each([
    ['LLM_MODEL', 'model: { name: gpt-4o }', { LLM_MODEL: 'demo' }],
    ['model.name', 'model: { name: demo }', {}],
    ['LLM_MODEL, whatever endpoint and key are set', '', { LLM_MODEL: 'demo', OPENAI_BASE_URL: 'http://localhost:11434/v1', OPENAI_API_KEY: 'sk-test' }],
  ])('selects the offline stand-in by the model name demo, from %s', (_, yaml, environment) => {
    expect(parseAgentYml(yaml, environment).model).toMatchObject({ name: 'demo', offlineStandIn: true, configured: true, baseURL: '' });
  });

  it('never selects the offline stand-in by itself: without a model, none is configured', () => {
    expect(parseAgentYml('').model).toMatchObject({ offlineStandIn: false, configured: false });
  });

  it('interpolates ${VAR} and ${VAR:-default} in values, and $$ as a literal dollar', () => {
    const config = parseAgentYml('systemPrompt: "Hi ${NAME}, price $$5, ${MISSING:-fallback}"', { NAME: 'Ada' });
    expect(config.systemPrompt).toBe('Hi Ada, price $5, fallback');
  });

  it('reads numbers and booleans from the environment', () => {
    const config = parseAgentYml('maxRounds: ${MAX_ROUNDS:-8}\nmodel: { temperature: "${TEMPERATURE}" }\nlogging:\n  logPayloads: ${LOG_PAYLOADS:-false}', { MAX_ROUNDS: '3', TEMPERATURE: '0.2', LOG_PAYLOADS: 'true' });
    expect(config).toMatchObject({ maxRounds: 3, model: { temperature: 0.2 }, logging: { logPayloads: true } });
    expect(configFailure('maxRounds: ${MAX_ROUNDS}', { MAX_ROUNDS: 'many' })).toMatch(/maxRounds: .*expected number/);
  });

  it.each([
    ['an unknown top-level key, with a hint', 'maxRound: 3', /maxRound: unknown key, did you mean "maxRounds"\?/],
    ['an unknown nested key', 'model: { temprature: 0.2 }', /model\.temprature: unknown key, did you mean "temperature"\?/],
    ['a wrong type', 'maxRounds: "five"', /maxRounds: .*expected number/],
    ['a number out of range', 'model: { temperature: 3 }', /model\.temperature: .*<=2/],
    ['a server without command or url', 'mcpServers: { broken: { args: [] } }', /mcpServers\.broken: give either "command" \(a stdio server\) or "url"/],
    ['an unknown key in a server', 'mcpServers: { demo: { command: node, arg: [x] } }', /mcpServers\.demo\.arg: unknown key, did you mean "args"\?/],
    ['a bad url', 'mcpServers: { remote: { url: "not a url" } }', /mcpServers\.remote\.url: /],
    ['an unset variable', 'model: { apiKey: "${NOT_SET}" }', /model\.apiKey: environment variable NOT_SET is not set/],
    ['a document that is not a mapping', '- a\n- b', /must be a YAML mapping/],
    ['a lease under a second', 'turn: { leaseSeconds: 0.5 }', /turn\.leaseSeconds: .*at least 1 s/],
    ['a model id with a space', 'openaiApi: { modelId: "my agent" }', /openaiApi\.modelId: a model id is 1 to 128 characters without spaces/],
    ['invalid YAML', 'model: {', /is not valid YAML/],
  ])('rejects %s with a message naming the key', (_, text, expected) => {
    const message = configFailure(text);
    expect(message).toMatch(expected);
    expect(message).toContain(AGENT_YML_SOURCE);
  });
});

describe('loadConfig', () => {
  it('reads the file named by AGENT_CONFIG', () => {
    const folder = temporaryFolder('agent-config-');
    writeFileSync(join(folder, 'custom.yml'), 'maxRounds: 3\n');
    expect(loadConfig({ environment: { AGENT_CONFIG: join(folder, 'custom.yml') } }).maxRounds).toBe(3);
  });

  it('says which file is missing and how to choose another', () => {
    expect(() => loadConfig({ environment: { AGENT_CONFIG: '/nonexistent/agent.yml' } })).toThrow(/cannot read the agent configuration \/nonexistent\/agent\.yml.*AGENT_CONFIG/);
  });
});
