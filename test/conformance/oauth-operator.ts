/**
 * The operator of the auth/* conformance scenarios: writes the agent.yml an operator would write
 * for the scenario's server, and plays the person of an authorization-code login by running the
 * login command (functions/mcp-login.ts) and following its URL the way a browser does. The
 * scenario's authorization server approves at once and redirects to the command's loopback
 * listener. A few scenarios run the command as its own process, exactly as `npm run mcp-login`
 * does; the others run the same code inside the client, which saves a Node start per scenario.
 */
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { discoverOAuthServerInfo } from '@modelcontextprotocol/sdk/client/auth.js';
import { stringify } from 'yaml';
import { runMcpLogin } from '../../functions/mcp-login.ts';
import { freePort } from '../support/mcp-servers.ts';

const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const LOGIN_COMMAND = join(PROJECT_ROOT, 'functions/mcp-login.ts');
export const SERVER_NAME = 'conformance';
/** The document the auth/basic-cimd scenario expects as client_id (it need not resolve). */
const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';

interface ScenarioContext {
  client_id?: string;
  client_secret?: string;
  private_key_pem?: string;
  signing_algorithm?: string;
  /** auth/wif-jwt-bearer: the workload's JWT, as its platform would write it to a file. */
  valid_jwt?: string;
  /** auth/enterprise-managed-authorization: the enterprise identity provider and the user's ID token from it. */
  idp_client_id?: string;
  idp_id_token?: string;
  idp_issuer?: string;
  idp_token_endpoint?: string;
}

export interface OperatorSetup {
  environment: Record<string, string>;
  /** enterprise-managed: no login; each call goes with the user's ID token (`callerToken`), as a signed-in caller's request would. */
  grant: 'authorization_code' | 'client_credentials' | 'jwt-bearer' | 'enterprise-managed';
  callerToken?: string;
}

/** agent.yml for the scenario in `directory`; secrets only as ${VAR}, their values in the environment. */
export async function writeAgentConfig(directory: string, scenario: string, serverUrl: string): Promise<OperatorSetup> {
  const context = JSON.parse(process.env['MCP_CONFORMANCE_CONTEXT'] ?? '{}') as ScenarioContext;
  const environment: Record<string, string> = {
    AGENT_CONFIG: join(directory, 'agent.yml'),
    LOCAL_DATA_DIR: join(directory, 'data'),
  };
  let oauth: Record<string, unknown>;
  let auth: Record<string, unknown> | undefined;
  // A secret or key is only ever presented to the authorization server agent.yml names: the
  // operator looks it up once, as from the server's documentation.
  const authorizationServer = async () => (await discoverOAuthServerInfo(serverUrl)).authorizationServerUrl;
  if (scenario === 'auth/client-credentials-basic') {
    oauth = { grant: 'client_credentials', clientId: context.client_id, clientSecret: '${CONFORMANCE_CLIENT_SECRET}', authorizationServer: await authorizationServer() };
    environment['CONFORMANCE_CLIENT_SECRET'] = context.client_secret ?? '';
  } else if (scenario === 'auth/client-credentials-jwt') {
    oauth = {
      grant: 'client_credentials',
      clientId: context.client_id,
      privateKey: '${CONFORMANCE_PRIVATE_KEY}',
      privateKeyAlgorithm: context.signing_algorithm ?? 'ES256',
      authorizationServer: await authorizationServer(),
    };
    environment['CONFORMANCE_PRIVATE_KEY'] = context.private_key_pem ?? '';
  } else if (scenario === 'auth/wif-jwt-bearer') {
    // The platform's part: the workload identity token in a file (EKS projects one into the pod).
    const assertionFile = join(directory, 'workload-token.jwt');
    await writeFile(assertionFile, context.valid_jwt ?? '', { mode: 0o600 });
    oauth = { grant: 'jwt-bearer', clientId: context.client_id, assertionFile, authorizationServer: await authorizationServer() };
  } else if (scenario === 'auth/enterprise-managed-authorization') {
    // The user's ID token is exchanged at the identity provider for an ID-JAG, which this client
    // (registered at the MCP server's authorization server) presents with the jwt-bearer grant.
    auth = { mode: 'enterprise-managed', identityProvider: { tokenEndpoint: context.idp_token_endpoint, clientId: context.idp_client_id } };
    oauth = { clientId: context.client_id, clientSecret: '${CONFORMANCE_CLIENT_SECRET}', authorizationServer: await authorizationServer() };
    environment['CONFORMANCE_CLIENT_SECRET'] = context.client_secret ?? '';
  } else {
    const redirectUrl = `http://localhost:${await freePort()}/callback`;
    oauth = { redirectUrl };
    if (scenario === 'auth/pre-registration') {
      Object.assign(oauth, { clientId: context.client_id, clientSecret: '${CONFORMANCE_CLIENT_SECRET}', authorizationServer: await authorizationServer() });
      environment['CONFORMANCE_CLIENT_SECRET'] = context.client_secret ?? '';
    }
    if (scenario === 'auth/basic-cimd') oauth['clientMetadataUrl'] = CLIENT_METADATA_URL;
  }
  const config = {
    tools: { connectTimeoutSeconds: 10, reconnectMaxDelaySeconds: 1 },
    mcpServers: { [SERVER_NAME]: { type: 'http', url: serverUrl, oauth, ...(auth ? { auth } : {}) } },
  };
  await writeFile(environment['AGENT_CONFIG']!, stringify(config));
  if (auth) return { environment, grant: 'enterprise-managed', ...(context.idp_id_token ? { callerToken: context.idp_id_token } : {}) };
  return { environment, grant: (oauth['grant'] as OperatorSetup['grant'] | undefined) ?? 'authorization_code' };
}

/** Scenarios whose logins run `npm run mcp-login` as a process (step-up and migration log in twice; a wrong iss stops the command). */
const LOGIN_AS_A_PROCESS = new Set(['auth/metadata-default', 'auth/pre-registration', 'auth/scope-step-up', 'auth/authorization-server-migration', 'auth/iss-wrong-issuer']);

/** The login command, then the browser following the URL it prints; resolves to its exit code. */
export async function login(environment: Record<string, string>, scenario: string): Promise<number> {
  return LOGIN_AS_A_PROCESS.has(scenario) ? loginAsProcess(environment) : loginInProcess(environment);
}

async function loginInProcess(environment: Record<string, string>): Promise<number> {
  let browsed: Promise<unknown> | undefined;
  const say = (line: string) => {
    process.stdout.write(line + '\n');
    if (/^https?:\/\/\S+$/.test(line)) browsed = fetch(line).then((response) => response.text()).catch(() => undefined);
  };
  try {
    await runMcpLogin(SERVER_NAME, { environment: { ...process.env, ...environment }, say });
    return 0;
  } catch (error) {
    process.stdout.write(`mcp-login: ${(error as Error).message}\n`);
    return 1;
  } finally {
    await browsed;
  }
}

async function loginAsProcess(environment: Record<string, string>): Promise<number> {
  const child = spawn(process.execPath, [LOGIN_COMMAND, SERVER_NAME], {
    cwd: PROJECT_ROOT,
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', ...environment },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let browsed: Promise<unknown> | undefined;
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
    process.stdout.write(chunk);
    const authorizationUrl = /^(https?:\/\/\S+)$/m.exec(output)?.[1];
    // The browser: the authorization server approves at once and redirects to the loopback listener.
    browsed ??= authorizationUrl ? fetch(authorizationUrl).then((response) => response.text()).catch(() => undefined) : undefined;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => process.stdout.write(chunk));
  const code = await new Promise<number>((resolve) => child.on('close', (exitCode) => resolve(exitCode ?? 1)));
  await browsed;
  return code;
}
