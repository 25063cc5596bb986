import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { authorizationRequired } from '../../lib/adapters/mcp/oauth/errors.ts';
import { EraNegotiation } from '../../lib/adapters/mcp/stateless/envelope.ts';
import { NegotiatingTransport } from '../../lib/adapters/mcp/stateless/negotiating-transport.ts';

/** The SDK's Streamable HTTP transport as the negotiation sees it: it records what is sent and refuses with `refusal`. */
function refusingTransport(refusal: Error): { inner: StreamableHTTPClientTransport; sent: string[] } {
  const sent: string[] = [];
  const inner = {
    start: async () => undefined,
    close: async () => undefined,
    send: async (message: JSONRPCMessage) => {
      sent.push('method' in message ? message.method : 'answer');
      throw refusal;
    },
    setProtocolVersion: () => undefined,
  } as unknown as StreamableHTTPClientTransport;
  return { inner, sent };
}

const initialize: JSONRPCMessage = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'test', version: '1' } } };

describe('the era negotiation when server/discover is refused', () => {
  it('falls back to initialize when the server refuses it (a 2025 server)', async () => {
    const { inner, sent } = refusingTransport(new Error('Streamable HTTP error: Error POSTing to endpoint (HTTP 400)'));
    const transport = new NegotiatingTransport(inner, new EraNegotiation({ name: 'test', version: '1' }, {}), 5_000);
    await transport.start();

    await expect(transport.send(initialize)).rejects.toThrow(/HTTP 400/);

    expect(sent).toEqual(['server/discover', 'initialize']);
  });

  it('stops with the authorization\'s own verdict, which initialize would only hide (a login is needed)', async () => {
    const verdict = authorizationRequired('wiki', '/srv/tokens.json', undefined, 'it now names the authorization server https://new.example.com/');
    const { inner, sent } = refusingTransport(verdict);
    const transport = new NegotiatingTransport(inner, new EraNegotiation({ name: 'test', version: '1' }, {}), 5_000);
    await transport.start();

    await expect(transport.send(initialize)).rejects.toBe(verdict);

    expect(sent).toEqual(['server/discover']);
  });
});
