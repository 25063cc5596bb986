import { describe, expect, it } from 'vitest';
import { acceptDefaults, clientCapabilities } from '../../lib/adapters/mcp/server-requests.ts';
import type { McpServerSpec } from '../../lib/adapters/mcp/types.ts';
import { recordingLogger } from '../support/recording-logger.ts';

const spec = (features: Partial<McpServerSpec> = {}): McpServerSpec =>
  ({ name: 'server', type: 'stdio', command: 'node', args: [], env: {}, ...features }) as McpServerSpec;
const options = (features: Partial<McpServerSpec>, extra: Partial<Parameters<typeof clientCapabilities>[0]> = {}) => ({
  spec: spec(features),
  defaultElicitation: undefined,
  onElicitation: undefined,
  onSampling: undefined,
  logger: recordingLogger(),
  context: (signal: AbortSignal) => ({ server: 'server', toolCalls: [], signal }),
  ...extra,
});

describe('acceptDefaults', () => {
  it('accepts with every default when each required field has one (SEP-1034)', () => {
    const schema = {
      type: 'object',
      properties: {
        name: { type: 'string', default: 'John Doe' },
        age: { type: 'integer', default: 30 },
        status: { type: 'string', enum: ['active', 'inactive'], default: 'active' },
        verified: { type: 'boolean', default: true },
        note: { type: 'string' },
      },
      required: ['name'],
    };

    expect(acceptDefaults(schema)).toEqual({ action: 'accept', content: { name: 'John Doe', age: 30, status: 'active', verified: true } });
  });

  it('declines when a required field has no default: nothing is invented', () => {
    const schema = { type: 'object', properties: { email: { type: 'string' }, lang: { type: 'string', default: 'en' } }, required: ['email'] };

    expect(acceptDefaults(schema)).toEqual({ action: 'decline' });
  });
});

describe('clientCapabilities', () => {
  it('declares nothing by default', () => {
    expect(clientCapabilities(options({}))).toEqual({});
  });

  it('declares roots only for a server with roots, and elicitation unless it would always decline (URL mode only under ask)', () => {
    expect(clientCapabilities(options({ roots: [] }))).toEqual({ roots: {} });
    expect(clientCapabilities(options({ elicitation: 'defaults' }))).toEqual({ elicitation: { form: {} } });
    expect(clientCapabilities(options({ elicitation: 'ask' }))).toEqual({});
    expect(clientCapabilities(options({ elicitation: 'ask' }, { onElicitation: async () => ({ action: 'decline' }) }))).toEqual({ elicitation: { form: {}, url: {} } });
    expect(clientCapabilities(options({}, { defaultElicitation: 'defaults' }))).toEqual({ elicitation: { form: {} } });
  });

  it('declares sampling only for a server that may sample, when there is a model to answer', () => {
    const onSampling = async () => ({ text: '', model: 'm' });

    expect(clientCapabilities(options({ sampling: true }, { onSampling }))).toEqual({ sampling: {} });
    expect(clientCapabilities(options({ sampling: 'ask' }, { onSampling }))).toEqual({ sampling: {} });
    expect(clientCapabilities(options({ sampling: false }, { onSampling }))).toEqual({});
    expect(clientCapabilities(options({ sampling: true }))).toEqual({});
    expect(clientCapabilities(options({}, { onSampling }))).toEqual({});
  });
});
