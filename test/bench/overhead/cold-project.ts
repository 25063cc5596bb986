/**
 * The cold start of the project's stream function, as the Lambda runtime gives it: a fresh Node
 * process loads the bundled function (BENCH_FUNCTION_BUNDLE, with the environment the stack would
 * set) and invokes its handler with one API Gateway event, `POST /conversations`, writing the
 * response to a response stream. The report goes to the parent when the turn has been answered;
 * the process then closes the agent (its MCP server) and exits, so the parent can count the CPU of
 * the whole tree.
 */
import { Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import type { ColdReport } from './cold-report.ts';

interface FunctionModule {
  handler(event: APIGatewayProxyEvent, responseStream: Writable, context: Context): Promise<void>;
  agent: { close(): Promise<void> };
}

const bundle = process.env.BENCH_FUNCTION_BUNDLE;
if (!bundle) throw new Error('BENCH_FUNCTION_BUNDLE names no bundle');
const loaded = (await import(pathToFileURL(bundle).href)) as FunctionModule;
const loadedMs = performance.now();

const body = JSON.stringify({ message: 'Add up a few numbers.' });
const event = {
  resource: '/{proxy+}',
  path: '/conversations',
  httpMethod: 'POST',
  headers: { 'content-type': 'application/json' },
  multiValueHeaders: { 'content-type': ['application/json'] },
  queryStringParameters: null,
  multiValueQueryStringParameters: null,
  pathParameters: { proxy: 'conversations' },
  stageVariables: null,
  body,
  isBase64Encoded: false,
  requestContext: { accountId: 'bench', apiId: 'bench', stage: 'bench', requestId: 'cold-start', httpMethod: 'POST', path: '/conversations', resourcePath: '/{proxy+}', identity: { sourceIp: '127.0.0.1' } },
} as unknown as APIGatewayProxyEvent;
const context = {
  functionName: 'bench-stream',
  awsRequestId: 'cold-start',
  getRemainingTimeInMillis: () => 900_000,
  callbackWaitsForEmptyEventLoop: false,
} as unknown as Context;

const chunks: Buffer[] = [];
const responseStream = Object.assign(
  new Writable({ write: (chunk: Buffer, _encoding, callback) => (chunks.push(Buffer.from(chunk)), callback()) }),
  { setContentType: () => {} },
);
await loaded.handler(event, responseStream, context);
const answeredMs = performance.now();
const cpu = process.cpuUsage();

// The body after the metadata prelude (JSON, then 8 NUL bytes) is the turn result.
const response = Buffer.concat(chunks);
const bodyStart = response.indexOf(Buffer.alloc(8)) + 8;
const prelude = JSON.parse(response.subarray(0, bodyStart - 8).toString('utf8')) as { statusCode: number };
const result = JSON.parse(response.subarray(bodyStart).toString('utf8')) as { stopReason?: string; reply?: string };
if (prelude.statusCode !== 201 || result.stopReason !== 'completed') throw new Error(`the function answered ${prelude.statusCode}: ${response.subarray(bodyStart).toString('utf8')}`);

const report: ColdReport = { loadedMs, answeredMs, cpuMs: (cpu.user + cpu.system) / 1000, peakRssMb: process.resourceUsage().maxRSS / 1024 };
process.send!(report, () => void loaded.agent.close().then(() => process.exit(0)));
