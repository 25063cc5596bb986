/**
 * `npm start`: the service on http://localhost:3000 (PORT overrides), with an embedded
 * DynamoDB-compatible store (dynalite, data under .data/), the MCP servers of agent.yml, and the
 * model from OPENAI_BASE_URL / OPENAI_API_KEY / LLM_MODEL. Requests go through the streaming Lambda
 * handler itself (functions/stream.ts), as API Gateway REST proxy events with a response stream:
 * JSON for every route, Server-Sent Events for a turn whose client accepts `text/event-stream`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ENV, readLocalSettings } from '../lib/config/environment.ts';
import { loadConfig } from '../lib/config/load.ts';
import { MODEL_NOT_CONFIGURED } from '../lib/core/errors.ts';
import { ms } from '../lib/core/time.ts';
import { ensureTable, startDynalite } from '../lib/local/dynalite.ts';
import { localContext, readRequest, responseStreamTo, toLocalEvent } from './local-events.ts';

const config = loadConfig();
const local = readLocalSettings(process.env);
const dataPath = resolve(local.dataDir, 'dynalite');

const dynamo = await startDynalite({ path: dataPath });
process.env.AWS_ENDPOINT_URL_DYNAMODB = dynamo.endpoint;
process.env.AWS_REGION ??= 'local';
process.env.AWS_ACCESS_KEY_ID ??= 'local';
process.env.AWS_SECRET_ACCESS_KEY ??= 'local';
// Embedded-metric lines on stdout are for CloudWatch; locally they would only bury the useful output.
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
// The HMAC key of derived conversation ids and page tokens, kept with the data (created 0600 on first start).
process.env[ENV.hmacKeyFile] ??= resolve(local.dataDir, 'hmac-key');
await ensureTable(new DynamoDBClient({}), config.conversation.tableName);

// Imported only now: the handler builds its DynamoDB client from the environment set above (and
// finds no Lambda runtime, so functions/awslambda.ts stands in for its `awslambda` global).
const { handler, agent } = await import('./stream.ts');
const context = localContext(ms(config.turn.timeoutSeconds));

const server = createServer(async (incoming, outgoing) => {
  try {
    const body = await readRequest(incoming);
    await handler(toLocalEvent(incoming, body), responseStreamTo(outgoing), context);
  } catch (error) {
    // Once the status is out, all that is left is to close the connection (the client may be gone).
    if (outgoing.headersSent) {
      outgoing.destroy();
      return;
    }
    const tooLarge = (error as { code?: string }).code === 'body_too_large';
    outgoing.writeHead(tooLarge ? 413 : 500, { 'content-type': 'application/json' }).end(
      JSON.stringify({ error: { code: tooLarge ? 'body_too_large' : 'internal_error', message: (error as Error).message } }),
    );
  }
});

server.listen(local.port, local.host, () => {
  const say = (line: string) => process.stdout.write(line + '\n');
  const { port: actualPort } = server.address() as AddressInfo;
  say(`MCP agent service listening on http://localhost:${actualPort} (configuration: ${config.source})`);
  say(`Conversations are stored in an embedded DynamoDB (dynalite) under ${dataPath}`);
  say(config.model.configured ? `Model: ${config.model.name} at ${config.model.baseURL}` : `WARNING: ${MODEL_NOT_CONFIGURED}`);
  void agent.health().then((health) => {
    for (const mcp of health.mcpServers) {
      say(`MCP server "${mcp.name}" (${mcp.transport}): ${mcp.status}, ${mcp.toolCount} tools${mcp.status === 'failed' ? ' (the log says why)' : ''}`);
    }
    say(`Try: curl -s localhost:${actualPort}/conversations -H 'content-type: application/json' -d '{"message":"What is the weather in Shanghai?"}'`);
    say(`Or watch the turn as Server-Sent Events: the same with -N -H 'accept: text/event-stream'`);
  });
});

let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  server.close();
  server.closeAllConnections();
  await agent.close();
  await dynamo.close();
  process.exit(0);
}
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
