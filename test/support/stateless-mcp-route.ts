/**
 * An MCP SDK server served statelessly at `/mcp` of an Express app or router: each POST gets a
 * fresh server (from `serverFor`, which may read the request, e.g. the user its bearer names) and a
 * transport without sessions answering in JSON; other methods are 405. The test servers behind
 * OAuth share it.
 */
import type { Request, Response, Router } from 'express';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

export function serveStatelessMcp(router: Router, serverFor: (request: Request) => McpServer): void {
  router.post('/mcp', async (request: Request, response: Response) => {
    const server = serverFor(request);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    response.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request, response, request.body);
  });
  router.all('/mcp', (_request: Request, response: Response) => {
    response.status(405).set('Allow', 'POST').end();
  });
}
