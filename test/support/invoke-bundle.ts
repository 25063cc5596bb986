import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'vitest';
import { FUNCTION_NODE_OPTIONS } from '../../infra/function-runtime.ts';
import { ENV } from '../../lib/config/environment.ts';

/** What a streaming Lambda handler wrote: the prelude's status and headers, then the body. */
export interface BundleAnswer {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * The environment a bundled function needs to answer a turn locally: its agent.json, the
 * conversations table on dynalite, an OpenAI-compatible model at `modelBaseURL`, and AWS settings
 * for the lean clients (the keys are only signed with: `credentials`, 'local' unless a server checks them).
 */
export function localFunctionEnvironment(options: { agentConfig: string; table: { tableName: string; endpoint: string }; modelBaseURL: string; credentials?: string }): Record<string, string> {
  const credentials = options.credentials ?? 'local';
  return {
    [ENV.agentConfig]: options.agentConfig,
    [ENV.conversationsTable]: options.table.tableName,
    [ENV.awsDynamodbEndpoint]: options.table.endpoint,
    [ENV.modelBaseUrl]: options.modelBaseURL,
    [ENV.modelApiKey]: 'sk-test',
    [ENV.modelName]: 'gpt-4-turbo',
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: credentials,
    AWS_SECRET_ACCESS_KEY: credentials,
  };
}

/**
 * Loads a bundled streaming function in a new process (its folder as the working directory, the
 * environment Lambda and the stack would give it: `environment`, with nothing inherited but PATH)
 * and invokes its handler with each event in turn, on a response stream as Lambda's: the metadata
 * prelude, eight NUL bytes, then the body. With `loadedMark`, the first event waits until that file
 * has content: what loading the function alone must have done.
 */
export async function invokeStreamingBundle(bundle: { file: string; folder: string }, events: unknown[], environment: Record<string, string>, options: { loadedMark?: string } = {}): Promise<BundleAnswer[]> {
  const script = `
    import { Writable } from 'node:stream';
    import { readFileSync } from 'node:fs';
    const bundle = await import(${JSON.stringify(bundle.file)});
    // Something the load alone must do (options.loadedMark): no event is sent before the file says it is done.
    const loadedMark = ${JSON.stringify(options.loadedMark ?? null)};
    const readMark = () => { try { return readFileSync(loadedMark, 'utf8'); } catch { return ''; } };
    for (const giveUp = Date.now() + 60000; loadedMark && !readMark(); ) {
      if (Date.now() > giveUp) throw new Error('the load left no mark in ' + loadedMark);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const context = { awsRequestId: 'bundle-test', functionName: 'stream', getRemainingTimeInMillis: () => 60000, callbackWaitsForEmptyEventLoop: false };
    const answers = [];
    for (const event of JSON.parse(process.env.TEST_EVENTS)) {
      const chunks = [];
      const responseStream = Object.assign(new Writable({ write: (chunk, _encoding, callback) => (chunks.push(Buffer.from(chunk)), callback()) }), { setContentType: () => {} });
      const finished = new Promise((resolve) => responseStream.on('finish', resolve));
      await bundle.handler(event, responseStream, context);
      await finished;
      const response = Buffer.concat(chunks);
      const bodyStart = response.indexOf(Buffer.alloc(8)) + 8;
      const prelude = JSON.parse(response.subarray(0, bodyStart - 8).toString('utf8'));
      answers.push({ statusCode: prelude.statusCode, headers: prelude.headers ?? {}, body: response.subarray(bodyStart).toString('utf8') });
    }
    await bundle.agent.close();
    process.stdout.write('\\nRESULT ' + JSON.stringify(answers) + '\\n');
    process.exit(0);`;
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '--eval', script], {
    cwd: bundle.folder,
    timeout: 90_000,
    // The Node options the stack gives the functions (infra/function-runtime.ts).
    env: { PATH: process.env.PATH ?? '', NODE_OPTIONS: FUNCTION_NODE_OPTIONS, POWERTOOLS_METRICS_DISABLED: 'true', POWERTOOLS_LOG_LEVEL: 'ERROR', ...environment, TEST_EVENTS: JSON.stringify(events) },
    maxBuffer: 16 * 1024 * 1024,
  });
  const line = stdout.split('\n').find((text) => text.startsWith('RESULT '));
  expect(line, stdout).toBeDefined();
  return JSON.parse(line!.slice('RESULT '.length)) as BundleAnswer[];
}
