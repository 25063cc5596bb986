/**
 * `npm start`: the service on http://localhost:3000 (PORT overrides), with an embedded
 * DynamoDB-compatible store (dynalite, data under .data/) or the DynamoDB at DYNAMODB_ENDPOINT
 * (DynamoDB Local, LocalStack, AWS), the MCP servers of agent.yml, and the model from
 * OPENAI_BASE_URL / OPENAI_API_KEY / LLM_MODEL; without one, the offline stand-in
 * (lib/demo/model.ts), so a first run answers at once. Requests go through the streaming Lambda
 * handler itself (functions/stream.ts), as API Gateway REST proxy events with a response stream:
 * JSON for every route, Server-Sent Events for a turn whose client accepts `text/event-stream`.
 * `GET /` is the chat page (lib/page/), served from the working tree.
 *
 * Reachable from every web page the user opens, it answers only requests for the host names it is
 * reached by on this machine (lib/local/allowed-hosts.ts), lets no other origin read its answers
 * (CORS_ALLOW_ORIGINS: none unless set), reads no body past http.maxBodyBytes, and keeps its data
 * folder to its user.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { ENV, readLocalSettings } from '../lib/config/environment.ts';
import { loadConfig, type AgentConfig } from '../lib/config/load.ts';
import { DEMO_MODEL_NAME } from '../lib/config/schema.ts';
import { errorMessage } from '../lib/core/errors.ts';
import { ms } from '../lib/core/time.ts';
import { preflightHeaders } from '../lib/http/cors.ts';
import { frontDoorErrorResponse } from '../lib/http/dispatch.ts';
import { hostRule, refusedHost, type HostRule } from '../lib/local/allowed-hosts.ts';
import { connectionEnvironment, dynamoConnection } from '../lib/local/dynamo-connection.ts';
import { modelNotConfigured, modelProvider } from '../lib/providers/configured-model.ts';
import { ensureTable, startDynalite } from '../lib/local/dynalite.ts';
import { readPageFile } from '../lib/local/page-files.ts';
import { PRIVATE_UMASK, privateFolder } from '../lib/local/private-folder.ts';
import { localContext, readRequest, responseStreamTo, toLocalEvent } from '../lib/local/lambda-bridge.ts';

const configured = loadConfig();
// A local run without a model answers with the offline stand-in rather than 503 (a deployed stack
// never does: functions/runtime.ts keeps answering model_not_configured).
const usesStandInByDefault = !configured.model.configured;
if (usesStandInByDefault) process.env[ENV.modelName] = DEMO_MODEL_NAME;
const config = usesStandInByDefault ? loadConfig() : configured;
// A provider that lacks something (Bedrock without a model, a region or credentials; a signed
// endpoint without its URL, a region or credentials) says what to set, and the run stops. (An
// OpenAI endpoint without a key never gets here: it runs the offline stand-in, above.)
const modelMissing = modelNotConfigured(config.model, process.env) ?? (await modelProvider(config.model).checkAtStart?.(config.model));
if (modelMissing) {
  process.stderr.write(`${modelMissing}\n`);
  process.exit(1);
}
const local = readLocalSettings(process.env);
const dataPath = resolve(local.dataDir, 'dynalite');
const tableName = config.conversation.tableName;

// What this process writes (dynalite's LevelDB files above all) is its user's only: 0600 files in
// 0700 folders. Its stdio MCP servers inherit the umask.
process.umask(PRIVATE_UMASK);
await privateFolder(local.dataDir);

// A DynamoDB the user runs (DYNAMODB_ENDPOINT) replaces the embedded one; its data is its own.
const embedded = local.dynamodbEndpoint ? undefined : await startDynalite({ path: dataPath });
const connection = dynamoConnection(local.dynamodbEndpoint ?? embedded!.endpoint, process.env);
// The emulator's placeholder keys would hide the developer's own AWS identity (a profile, SSO) from
// Bedrock; dynalite takes any keys, so with Bedrock the store signs with the developer's too.
const signsWithOwnIdentity = config.model.provider === 'bedrock' && !process.env[ENV.awsAccessKeyId];
Object.assign(process.env, connectionEnvironment(signsWithOwnIdentity ? { endpoint: connection.endpoint, ...(connection.region ? { region: connection.region } : {}) } : connection));
// Embedded-metric lines on stdout are for CloudWatch; locally they would only bury the useful output.
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
// The HMAC key of derived conversation ids and page tokens, kept with the data (created 0600 on first start).
process.env[ENV.hmacKeyFile] ??= resolve(local.dataDir, 'hmac-key');
// The key that seals users' connection tokens (per-user servers), made 0600 at first use.
process.env[ENV.connectionKeyFile] ??= resolve(local.dataDir, 'connection-key');
// A deployed API lets every origin read it by default; a service on the user's machine lets none
// but its own (the chat page it serves needs no CORS header), unless CORS_ALLOW_ORIGINS names them.
process.env[ENV.corsAllowOrigins] ||= 'none';
try {
  await ensureTable(new DynamoDBClient({}), tableName);
} catch (error) {
  // Typically DYNAMODB_ENDPOINT names nothing that is running: say where and why, not a stack trace.
  process.stderr.write(`Cannot use DynamoDB at ${connection.endpoint}: ${errorMessage(error)}\n`);
  await embedded?.close();
  process.exit(1);
}
const storeDescription = embedded
  ? `an embedded DynamoDB (dynalite) under ${dataPath}`
  : `DynamoDB at ${connection.endpoint} (${ENV.dynamodbEndpoint}), table "${tableName}"`;

// Imported only now: the handler builds its DynamoDB client from the environment set above (and
// finds no Lambda runtime, so lib/http/lambda/awslambda-global.ts stands in for its `awslambda` global).
const { handler, agent, frontDoors } = await import('./stream.ts');
const { allowedOrigins, logger } = await import('./runtime.ts');
const context = localContext(ms(config.turn.timeoutSeconds));

/** The host names answered, at the port listened on (known once listening: PORT may be 0). */
let hosts: HostRule | undefined;

const server = createServer(async (incoming, outgoing) => {
  const path = new URL(incoming.url ?? '/', 'http://localhost').pathname;
  try {
    hosts ??= hostRule(local, (server.address() as AddressInfo).port);
    const refused = refusedHost(incoming.headers.host, hosts);
    if (refused) throw refused;
    // A deployment's preflights are API Gateway's; here, this server's.
    const preflight = incoming.method === 'OPTIONS' ? preflightHeaders(incoming.headers, allowedOrigins) : undefined;
    if (preflight) {
      outgoing.writeHead(204, preflight).end();
      return;
    }
    // The chat page (GET /, and its files); every other request is the API's.
    const page = await readPageFile(incoming.method, incoming.url ?? '/');
    if (page) {
      outgoing.writeHead(200, page.headers).end(incoming.method === 'HEAD' ? undefined : page.body);
      return;
    }
    const body = await readRequest(incoming, config.http.maxBodyBytes);
    // The bridge builds the whole REST proxy event, typed (in lib/, without aws-lambda) by what the contract reads.
    await handler(toLocalEvent(incoming, body, local.callerHeader, local.claimsHeader) as APIGatewayProxyEvent, responseStreamTo(outgoing), context);
  } catch (error) {
    // Once the status is out, all that is left is to close the connection (the client may be gone).
    if (outgoing.headersSent) {
      outgoing.destroy();
      return;
    }
    // In the error shape of the door the client called (a refused host under /v1 answers as OpenAI does).
    const response = frontDoorErrorResponse(frontDoors, { method: incoming.method ?? 'GET', path }, error, logger);
    // Closed after the answer: the rest of a refused body is not read.
    outgoing.writeHead(response.statusCode, { ...response.headers, connection: 'close' }).end(response.body);
  }
});

server.listen(local.port, local.host, () => {
  const say = (line: string) => process.stdout.write(line + '\n');
  const { port: actualPort } = server.address() as AddressInfo;
  // Where a provider sends a person back after they connect an account (per-user servers): this server, unless set.
  process.env[ENV.publicBaseUrl] ||= `http://localhost:${actualPort}`;
  say(`MCP agent service listening on http://localhost:${actualPort} (configuration: ${config.source})`);
  say(`Conversations are stored in ${storeDescription}`);
  if (config.files.enabled) say(`Files of conversations (agent.yml files) are kept in ${process.env[ENV.filesBucket] ? `the S3 bucket ${process.env[ENV.filesBucket]}` : resolve(local.dataDir, 'files')}`);
  for (const line of modelLines(config, usesStandInByDefault)) say(line);
  void agent.health().then((health) => {
    for (const mcp of health.mcpServers) {
      say(`MCP server "${mcp.name}" (${mcp.transport}): ${mcp.status}, ${mcp.toolCount} tools${mcp.status === 'failed' ? ' (the log says why)' : ''}`);
    }
    say(`Chat page: http://localhost:${actualPort}/`);
    say(`Try: curl -s localhost:${actualPort}/conversations -H 'content-type: application/json' -d '{"message":"What is the weather in Shanghai?"}'`);
    say(`Or watch the turn as Server-Sent Events: the same with -N -H 'accept: text/event-stream'`);
    say(`OpenAI-compatible clients: base URL http://localhost:${actualPort}/v1, model "${config.openaiApi.modelId}", any API key`);
    if (config.uiStreams) say(`UI toolkits: useChat with api http://localhost:${actualPort}/ui/ai-sdk/chat, AG-UI (CopilotKit) at http://localhost:${actualPort}/ui/ag-ui`);
    if (config.mcpServerDoor.enabled) say(`MCP clients: http://localhost:${actualPort}/mcp (Streamable HTTP), tool "${config.mcpServerDoor.toolName}"`);
    if (config.a2a.enabled) say(`A2A agents: the agent card at http://localhost:${actualPort}/.well-known/agent-card.json, JSON-RPC at http://localhost:${actualPort}/a2a`);
  });
});

/** What answers questions, and for the stand-in, how to point the service at a real model. */
function modelLines(current: AgentConfig, byDefault: boolean): string[] {
  if (!current.model.offlineStandIn) return [`Model: ${modelProvider(current.model).describe(current.model)}`];
  return [
    `Model: the offline demo model (${byDefault ? 'no model is configured' : `${ENV.modelName}=${DEMO_MODEL_NAME}`}): a few rules, no language model.`,
    '  It answers questions about the weather in a city, the news and cancelling orders with the demo MCP tools.',
    '  For a real model, restart with one of:',
    `    ${ENV.modelApiKey}=sk-... ${ENV.modelName}=gpt-4o-mini npm start                                  (OpenAI)`,
    `    ${ENV.modelBaseUrl}=http://localhost:11434/v1 ${ENV.modelName}=qwen2.5 npm start                 (Ollama)`,
    `    ${ENV.modelBaseUrl}=http://localhost:8000/v1 ${ENV.modelName}=Qwen/Qwen3-8B npm start            (vLLM)`,
    `    ${ENV.modelProvider}=bedrock ${ENV.awsRegion}=us-east-1 ${ENV.modelName}=us.anthropic.claude-sonnet-4-5-20250929-v1:0 npm start   (Amazon Bedrock, your AWS credentials)`,
  ];
}

let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  server.close();
  server.closeAllConnections();
  await agent.close();
  await embedded?.close();
  process.exit(0);
}
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
