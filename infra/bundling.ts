import { existsSync } from 'node:fs';
import path from 'node:path';
import { OutputFormat, type BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { BuildOptions } from 'esbuild';
import { configSchemaVersion } from './config-schema-version.ts';
import type { ModelProvider } from './settings.ts';
import { BUNDLED_TOOL_POLICY, CEDAR_WASM_FILE, type ToolPolicyFiles } from './tool-policy.ts';

/** The repository root: entries, package-lock.json and agent.yml are found from here. */
export const PROJECT_ROOT = path.resolve(import.meta.dirname, '..');

/** The Lambda entries, relative to the repository root. */
export const FUNCTION_ENTRIES = {
  healthAndFallbacks: 'functions/health-and-fallbacks.ts',
  stream: 'functions/stream.ts',
  worker: 'functions/worker.ts',
} as const;

/** authMode=oidc: the REST API's Lambda authorizer, its own small bundle (jose and the verifier, never the agent). */
export const OIDC_AUTHORIZER_ENTRY = 'functions/oidc-authorizer.ts';

export const DEMO_SERVER_ENTRY = 'lib/demo/server.ts';
/** File names inside each function's bundle (Lambda runs the bundle from /var/task). */
export const BUNDLED_AGENT_CONFIG = 'agent.json';
export const BUNDLED_DEMO_SERVER = 'demo-server.mjs';
/** agent.yml's validation (lib/config/validate.ts) as one CommonJS file, for an agent.json the build did not validate. */
export const CONFIG_VALIDATION_ENTRY = 'lib/config/validate.ts';
export const BUNDLED_CONFIG_VALIDATION = 'config-validation.cjs';
/** Ajv (lib/json-schema/ajv-compilers.ts) as one CommonJS file, for a tool schema the interpreter does not take. */
export const AJV_COMPILERS_ENTRY = 'lib/json-schema/ajv-compilers.ts';
export const BUNDLED_AJV_COMPILERS = 'ajv-compilers.cjs';
export const LAMBDA_TASK_ROOT = '/var/task';

/**
 * The code interpreter's sandbox beside a function (lib/adapters/python/pyodide-files.ts finds them
 * there): its worker compiled to one ESM file, and Pyodide's files in a folder (about 13.5 MB, most
 * of it the 9.6 MB WebAssembly interpreter and the 2.5 MB standard library; docs/code-interpreter.md).
 */
export const PYTHON_WORKER_ENTRY = 'lib/adapters/python/python-worker.ts';
export const BUNDLED_PYTHON_WORKER = 'python-worker.mjs';
export const BUNDLED_PYODIDE = 'pyodide';
export const PYODIDE_FILES = ['pyodide.asm.mjs', 'pyodide.asm.wasm', 'python_stdlib.zip', 'pyodide-lock.json'] as const;

/**
 * Bundled ESM has no `require`, yet CommonJS packages inside the bundle still call it for Node
 * built-ins (the MCP SDK's stdio transport requires child_process): give the module one.
 */
export const ESM_REQUIRE_BANNER = "import { createRequire } from 'module'; const require = createRequire(import.meta.url);";

/**
 * The esbuild settings of every bundle: the three functions, the demo MCP server, and the sizes
 * reported by bundle-size.ts all come from here, so they cannot drift apart.
 * - ESM: functions/runtime.ts awaits the configuration and the secret at module top level.
 * - node22: the Lambda runtime; nothing is down-levelled.
 * - mainFields module first: packages that ship both builds bundle their ESM build, which tree-shakes
 *   better (the function bundles come out about 15% smaller than with the CommonJS builds).
 * - minified, without source maps: less code to load on a cold start. A function's map is larger
 *   than its code (1.3 MB for an 830 KB bundle) and `--enable-source-maps` costs every cold start
 *   about 10% more CPU, for stack traces that the logs rarely need: errors carry stable codes and
 *   messages. The code is the same with or without a map, so `npm run bundle-size -- --write DIR`
 *   gives the map of exactly what a commit deploys, to read a stack trace against.
 */
export const ESBUILD_SETTINGS = {
  platform: 'node',
  format: 'esm',
  target: 'node22',
  mainFields: ['module', 'main'],
  minify: true,
  banner: ESM_REQUIRE_BANNER,
} as const;

/**
 * The demo server starts itself when it is the main module (`import.meta.main`, which Node has only
 * since 22.18). Its bundle is only ever run as the main module, so the check is settled at build
 * time and the bundle runs on any Node 22.
 */
export const DEMO_SERVER_DEFINE = { 'import.meta.main': 'true' };

/** What a deployment uses, and so what its functions must bundle. */
export interface FunctionBundleOptions {
  /** Who answers the model calls (infra/model-access.ts, deployedModel): only that provider's code is bundled. */
  modelProvider: ModelProvider;
  /** The model key is read from SSM Parameter Store (context modelApiKeyParameterName). */
  ssmClient: boolean;
  /** agent.yml starts the demo MCP server (infra/demo-server.ts): its compiled copy goes beside each function. */
  demoServer?: boolean;
  /** OpenTelemetry is exported (OTEL_EXPORTER_OTLP_ENDPOINT): only then is its SDK bundled (lib/telemetry.ts). */
  telemetry?: boolean;
  /** agent.yml turns files on (infra/files-bucket.ts): the files feature, its stores and the S3 client are bundled. */
  files?: boolean;
  /** agent.yml turns codeInterpreter on (infra/code-interpreter.ts): the extension and the sandbox are bundled, the Python worker and Pyodide go beside each function. */
  codeInterpreter?: boolean;
  /** agent.yml sets deepSearch (infra/deep-search.ts): only then is deep search bundled. */
  deepSearch?: boolean;
  /** agent.yml runs plan-execute (infra/bundled-strategies.ts): only then is the strategy bundled. */
  planExecute?: boolean;
  /** agent.yml runs a reflection strategy (reflexion, Self-Refine, self-consistency): only then are they bundled. */
  reflection?: boolean;
  /** agent.yml turns on memory, history.strategy summarize, todoList (infra/bundled-extensions.ts): only those extensions are bundled. */
  memory?: boolean;
  historySummary?: boolean;
  todoList?: boolean;
  /** agent.yml turns uiStreams on (infra/ui-streams.ts): only then are the AI SDK UI and AG-UI doors bundled. */
  uiStreams?: boolean;
  /** agent.yml turns mcpServerDoor on (infra/mcp-server-door.ts): only then is the MCP SDK's server bundled. */
  mcpServerDoor?: boolean;
  /** agent.yml turns the A2A front door on (infra/a2a-door.ts): only then are the door and @a2a-js/sdk bundled. */
  a2a?: boolean;
  /** Some MCP server of agent.yml is called on its callers' behalf (auth.mode token-exchange or enterprise-managed): the exchanger is bundled. */
  onBehalfOf?: boolean;
  /** agent.yml has a toolPolicy (infra/tool-policy.ts): Cedar is bundled, its WebAssembly and these files go beside each function. */
  toolPolicy?: ToolPolicyFiles;
  /** agent.yml gives some MCP server an `oauth` block: the OAuth client, DPoP and workload identity are bundled. */
  mcpOAuth?: boolean;
  /** agent.yml names an MCP server with a url (infra/mcp-remote.ts): only then is the MCP client's HTTP side bundled. */
  mcpRemote?: boolean;
  /** agent.yml has a server of auth.mode per-user (infra/per-user-connections.ts): the owners' OAuth flows and the KMS client are bundled. */
  perUserConnections?: boolean;
}

/** The stack's defaults: an OpenAI-compatible model, its key in Secrets Manager. */
export const DEFAULT_FUNCTION_BUNDLE: FunctionBundleOptions = { modelProvider: 'openai', ssmClient: false };
/** A stack on Bedrock: the Bedrock provider instead of the OpenAI-compatible one, and no model key. */
export const BEDROCK_FUNCTION_BUNDLE: FunctionBundleOptions = { modelProvider: 'bedrock', ssmClient: false };

/**
 * Packages the Lambda functions get in a smaller form (esbuild aliases, package → file). Each is
 * imported by code that also runs from the sources (npm start, tests, embedding), where the full
 * package is right; in a function it would be dead weight on every cold start:
 * - yaml (115 KB): the build writes agent.yml as agent.json, so the functions only parse JSON;
 * - #config-validation (agent.yml's zod schemas, about 13 ms of a cold start to construct): the
 *   build validates agent.json (infra/bundled-config.ts), and only one it did not validate is
 *   validated, by BUNDLED_CONFIG_VALIDATION beside the function (config-validation-beside.ts);
 * - @aws-sdk/credential-provider-node (about 90 KB with the STS and SSO clients): Lambda gives
 *   credentials in the environment, the rest of the default chain never runs there;
 * - @aws-sdk/client-ssm (80 KB): only where the model key lives in SSM Parameter Store;
 * - #ajv-compilers (Ajv with fast-uri, about 135 KB and 5 ms of a cold start to evaluate): tool
 *   schemas of the common subset are validated by lib/json-schema/interpret.ts, and only one
 *   outside it loads Ajv, from BUNDLED_AJV_COMPILERS beside the function (ajv-compilers-beside.ts);
 * - ajv and ajv-formats: the MCP SDK's default validator needs them, and every Client gets ours;
 * - cross-spawn (6 KB): on Linux it is child_process.spawn;
 * - mnemonist/lru-cache (7 KB): the DynamoDB client's endpoint cache, kept as well by a Map;
 * - @aws-sdk/client-secrets-manager (about 100 KB with the parts of @smithy/core only it uses): the
 *   cold start reads its secrets without it (lib/lean-secrets.ts); only where agent.yml gives an
 *   MCP server an `oauth` block does the token store need it;
 * - #dynamodb-commands: the SDK document client's commands, which an embedder's document client
 *   sends; the functions use the lean client (lib/adapters/dynamodb/lean-documents.ts), so the
 *   SDK's DynamoDB clients are left out (without-dynamodb-commands.ts);
 * - #telemetry (the OpenTelemetry SDK and exporters, and the spans' code): only in a stack that
 *   exports telemetry (docs/observability.md).
 * - #files and #file-stores (file_tool, report_tool, the file stores and the S3 client, about
 *   190 KB): only where agent.yml turns files on;
 * - #memory-extension, #history-summary, #todo-list (about 11 KB together): only the ones agent.yml
 *   turns on;
 * - #plan-execute (about 12 KB), #reflection (about 16 KB), #code-interpreter and #python-sandbox
 *   (about 10 KB), #deep-search (about 8 KB): only where agent.yml runs that strategy or turns the
 *   code interpreter or deep search on;
 * - #ui-streams (the AI SDK UI and AG-UI doors): only where agent.yml turns uiStreams on;
 * - #mcp-server-door (the MCP SDK's v2 server package and the door): only where agent.yml turns
 *   mcpServerDoor on;
 * - #a2a-door (the A2A front door and @a2a-js/sdk's server, about 105 KB): only where agent.yml turns a2a on;
 * - #on-behalf-of (token exchange and enterprise-managed authorization for MCP servers called as
 *   their callers, about 7 KB): only where some server of agent.yml has such an auth.mode;
 * - #per-user-connections (the owners' OAuth flows, the KMS client): only where a server of
 *   agent.yml has auth.mode per-user;
 * - #call-policy (Cedar's bindings and the policy adapter, about 25 KB, and its 4.3 MB WebAssembly
 *   beside the code): only where agent.yml has a toolPolicy;
 * - #mcp-remote (the MCP client's Streamable HTTP and SSE transports and the stateless era, about
 *   32 KB, and the errors only they raise): only where agent.yml names an MCP server with a url;
 * - #mcp-oauth-client, #mcp-oauth-dpop and #mcp-oauth-workload (a remote server's OAuth provider
 *   on the MCP SDK's OAuth client and its metadata schemas, DPoP, workload identity; with
 *   #mcp-remote's errors, about 43 KB and 6 ms of a cold start): only where some server of
 *   agent.yml has an `oauth` block.
 * And each function carries only the configured model provider (modelProviderSubstitutes).
 */
export function functionSubstitutes(options: FunctionBundleOptions): Record<string, string> {
  return {
    yaml: substitute('json-only-yaml.ts'),
    '#config-validation': substitute('config-validation-beside.ts'),
    '#ajv-compilers': substitute('ajv-compilers-beside.ts'),
    ajv: substitute('without-ajv.ts'),
    '@aws-sdk/credential-provider-node': substitute('environment-credentials.ts'),
    'ajv-formats': substitute('without-ajv-formats.ts'),
    'cross-spawn': substitute('linux-spawn.ts'),
    // The same module: the bundles' spawn hands over the stdio servers started while the function loads.
    '#early-start-handover': substitute('linux-spawn.ts'),
    'mnemonist/lru-cache': substitute('map-lru-cache.ts'),
    '#dynamodb-commands': substitute('without-dynamodb-commands.ts'),
    ...modelProviderSubstitutes(options.modelProvider),
    ...(options.ssmClient ? {} : { '@aws-sdk/client-ssm': substitute('without-ssm.ts') }),
    ...(options.telemetry ? {} : { '#telemetry': substitute('without-telemetry.ts') }),
    ...(options.files ? {} : { '#files': substitute('without-files.ts'), '#file-stores': substitute('without-files.ts') }),
    ...(options.planExecute ? {} : { '#plan-execute': substitute('without-plan-execute.ts') }),
    ...(options.reflection ? {} : { '#reflection': substitute('without-reflection.ts') }),
    ...(options.memory ? {} : { '#memory-extension': substitute('without-extensions.ts') }),
    ...(options.historySummary ? {} : { '#history-summary': substitute('without-extensions.ts') }),
    ...(options.todoList ? {} : { '#todo-list': substitute('without-extensions.ts') }),
    ...(options.a2a ? {} : { '#a2a-door': substitute('without-a2a-door.ts') }),
    ...(options.codeInterpreter ? {} : { '#code-interpreter': substitute('without-code-interpreter.ts'), '#python-sandbox': substitute('without-code-interpreter.ts') }),
    ...(options.deepSearch ? {} : { '#deep-search': substitute('without-deep-search.ts') }),
    ...(options.uiStreams ? {} : { '#ui-streams': substitute('without-ui-streams.ts') }),
    ...(options.mcpServerDoor ? {} : { '#mcp-server-door': substitute('without-mcp-server-door.ts') }),
    ...(options.toolPolicy ? {} : { '#call-policy': substitute('without-call-policy.ts') }),
    ...(options.mcpOAuth ? {} : { '#mcp-oauth-dpop': substitute('without-mcp-oauth.ts'), '#mcp-oauth-workload': substitute('without-mcp-oauth.ts'), '#mcp-oauth-client': substitute('without-mcp-oauth.ts'), '@aws-sdk/client-secrets-manager': substitute('without-secrets-manager.ts') }),
    ...(options.onBehalfOf ? {} : { '#on-behalf-of': substitute('without-on-behalf-of.ts') }),
    ...(options.mcpRemote ? {} : { '#mcp-remote': substitute('without-mcp-remote.ts') }),
    ...(options.perUserConnections ? {} : { '#per-user-connections': substitute('without-per-user-connections.ts') }),
  };
}

/**
 * The model providers a function does not run, left out:
 * - #bedrock-provider (about 105 KB with the Bedrock Runtime client, its REST-JSON protocol and
 *   HTTP/2 handler), and with it @smithy/core/event-streams (15 KB of that): no other client of the
 *   functions has an event stream, and ConverseStream is one;
 * - #openai-provider (about 27 KB with the `openai` package's stream decoder);
 * - with Bedrock, @aws-sdk/token-providers: the Bedrock client's bearer tokens (Bedrock API keys)
 *   are read from the environment only, without the SSO sessions of a profile (20 KB with the SSO
 *   OIDC client; environment-bearer-token.ts says why that is all a function can use).
 * The offline demo model (lib/providers/demo.ts, LLM_MODEL=demo) is small and always there.
 */
export function modelProviderSubstitutes(provider: ModelProvider): Record<string, string> {
  return {
    ...(provider === 'bedrock'
      ? { '@aws-sdk/token-providers': substitute('environment-bearer-token.ts') }
      : { '#bedrock-provider': substitute('without-bedrock.ts'), '@smithy/core/event-streams': substitute('without-event-streams.ts') }),
    ...(provider === 'openai' ? {} : { '#openai-provider': substitute('without-openai.ts') }),
  };
}

const substitute = (file: string) => path.join(PROJECT_ROOT, 'functions', 'substitutes', file);

/**
 * A file beside a function that it requires on first use (agent.yml's validation,
 * functions/substitutes/config-validation-beside.ts; Ajv, ajv-compilers-beside.ts): CommonJS, so
 * the function loads it synchronously, as loadConfig and compileSchema are. Built without the
 * functions' substitutes: it is the real module they stand in for.
 */
export function besideArguments(entry: string, outfile: string): string[] {
  const settings = ESBUILD_SETTINGS;
  return ['--bundle', entry, `--outfile=${outfile}`, `--platform=${settings.platform}`, '--format=cjs', `--target=${settings.target}`, ...(settings.minify ? ['--minify'] : []), '--log-level=warning'];
}

/** The same for esbuild's JavaScript API: `entry` relative to the repository root. */
export function besideBuildOptions(entry: string, outfile: string): BuildOptions {
  const { platform, target, minify } = ESBUILD_SETTINGS;
  return { entryPoints: [path.join(PROJECT_ROOT, entry)], outfile, bundle: true, platform, format: 'cjs', target, minify, logLevel: 'warning' };
}

/** The same for esbuild's JavaScript API (tests that load a bundle with an agent.json the build did not validate). */
export function configValidationBuildOptions(outfile: string): BuildOptions {
  return besideBuildOptions(CONFIG_VALIDATION_ENTRY, outfile);
}

/** Ajv beside a function, for esbuild's JavaScript API (the benchmarks, tests that run a function's bundle with tools outside the subset). */
export function ajvCompilersBuildOptions(outfile: string): BuildOptions {
  return besideBuildOptions(AJV_COMPILERS_ENTRY, outfile);
}

/** The settings for esbuild's JavaScript API (bundle-size.ts, the benchmarks). */
export function esbuildBuildOptions(entry: string, outfile: string, define: Record<string, string> = {}, alias: Record<string, string> = {}): BuildOptions {
  const { banner, mainFields, ...settings } = ESBUILD_SETTINGS;
  return { ...settings, entryPoints: [entry], outfile, bundle: true, mainFields: [...mainFields], banner: { js: banner }, define, alias, logLevel: 'warning' };
}

/** A Lambda function's bundle for esbuild's JavaScript API: the settings and the substitutes. */
export function functionBuildOptions(entry: string, outfile: string, options: FunctionBundleOptions = DEFAULT_FUNCTION_BUNDLE): BuildOptions {
  return esbuildBuildOptions(entry, outfile, configSchemaDefine(), functionSubstitutes(options));
}

/**
 * The version of agent.yml's schema the functions are built with: they take the agent.json the same
 * build pre-validated (infra/bundled-config.ts) without evaluating the schema, and validate any other.
 */
export function configSchemaDefine(): Record<string, string> {
  return { BUNDLED_CONFIG_SCHEMA: JSON.stringify(configSchemaVersion()) };
}

/** The same settings as esbuild command-line arguments (the demo server, built in a command hook). */
export function esbuildArguments(entry: string, outfile: string, define: Record<string, string> = {}): string[] {
  const settings = ESBUILD_SETTINGS;
  return [
    '--bundle', entry, `--outfile=${outfile}`,
    `--platform=${settings.platform}`, `--format=${settings.format}`, `--target=${settings.target}`,
    `--main-fields=${settings.mainFields.join(',')}`,
    ...(settings.minify ? ['--minify'] : []),
    `--banner:js=${settings.banner}`,
    ...Object.entries(define).map(([name, value]) => `--define:${name}=${value}`),
    '--log-level=warning',
  ];
}

/** Resolves agentConfig against the repository root, and stops the synth when it is missing. */
export function agentConfigPath(agentConfig: string): string {
  const resolved = path.resolve(PROJECT_ROOT, agentConfig);
  if (!existsSync(resolved)) throw new Error(`context agentConfig: ${resolved} does not exist (paths are relative to ${PROJECT_ROOT})`);
  return resolved;
}

/**
 * NodejsFunction bundling with the local esbuild (never Docker). The AWS SDK is bundled rather than
 * taken from the runtime: the functions then run the SDK version the tests ran against (the
 * runtime's copy changes under us with runtime updates), and a minified, tree-shaken SDK inside the
 * bundle loads faster at cold start than the runtime's full packages.
 *
 * After esbuild, each bundle receives agent.yml as agent.json (infra/bundled-config.ts, validated
 * there when its placeholders allow, for the schema version of configSchemaDefine), the validation
 * for an agent.json it did not validate (BUNDLED_CONFIG_VALIDATION), Ajv for the tool schemas the
 * interpreter does not take (BUNDLED_AJV_COMPILERS) and, when
 * agent.yml starts it, the demo MCP server compiled to one ESM file, which agent.yml starts with
 * `node` (DEMO_MCP_SERVER, relative to the configuration's folder).
 */
export function functionBundling(agentConfigFile: string, options: FunctionBundleOptions = DEFAULT_FUNCTION_BUNDLE): BundlingOptions {
  const settings = ESBUILD_SETTINGS;
  return {
    forceDockerBundling: false,
    format: OutputFormat.ESM,
    target: settings.target,
    mainFields: [...settings.mainFields],
    minify: settings.minify,
    sourceMap: false,
    banner: settings.banner,
    bundleAwsSDK: true,
    define: configSchemaDefine(),
    esbuildArgs: { '--alias': Object.entries(functionSubstitutes(options)).map(([name, file]) => `${name}=${file}`) },
    commandHooks: {
      beforeBundling: () => [],
      beforeInstall: () => [],
      afterBundling: (inputDir: string, outputDir: string) => {
        const relativeConfig = path.relative(PROJECT_ROOT, agentConfigFile);
        const esbuild = path.join(inputDir, 'node_modules', '.bin', 'esbuild');
        const demoServer = esbuildArguments(path.join(inputDir, DEMO_SERVER_ENTRY), path.join(outputDir, BUNDLED_DEMO_SERVER), DEMO_SERVER_DEFINE);
        const writeConfig = [process.execPath, path.join(inputDir, 'infra', 'bundled-config.ts'), path.join(inputDir, relativeConfig), path.join(outputDir, BUNDLED_AGENT_CONFIG), ...(options.toolPolicy ? ['--tool-policy'] : [])];
        const configValidation = besideArguments(path.join(inputDir, CONFIG_VALIDATION_ENTRY), path.join(outputDir, BUNDLED_CONFIG_VALIDATION));
        const ajvCompilers = besideArguments(path.join(inputDir, AJV_COMPILERS_ENTRY), path.join(outputDir, BUNDLED_AJV_COMPILERS));
        return [
          writeConfig.map(shellQuote).join(' '),
          [esbuild, ...configValidation].map(shellQuote).join(' '),
          ...(options.demoServer ? [[esbuild, ...demoServer].map(shellQuote).join(' ')] : []),
          ...(options.codeInterpreter ? pythonSandboxCommands(esbuild, inputDir, outputDir) : []),
          ...(options.toolPolicy ? toolPolicyCommands(options.toolPolicy, inputDir, outputDir) : []),
          [esbuild, ...ajvCompilers].map(shellQuote).join(' '),
        ];
      },
    },
  };
}

/** The OIDC authorizer's bundling: esbuild alone, no agent.yml, substitutes or copied files (it reads none of them). */
export function authorizerBundling(): BundlingOptions {
  const settings = ESBUILD_SETTINGS;
  return { forceDockerBundling: false, format: OutputFormat.ESM, target: settings.target, mainFields: [...settings.mainFields], minify: settings.minify, sourceMap: false, banner: settings.banner };
}

/** Compiles the Python worker and copies Pyodide's files beside a function. */
function pythonSandboxCommands(esbuild: string, inputDir: string, outputDir: string): string[] {
  const worker = esbuildArguments(path.join(inputDir, PYTHON_WORKER_ENTRY), path.join(outputDir, BUNDLED_PYTHON_WORKER));
  const pyodide = path.join(outputDir, BUNDLED_PYODIDE);
  const files = PYODIDE_FILES.map((file) => path.join(inputDir, 'node_modules', 'pyodide', file));
  return [[esbuild, ...worker].map(shellQuote).join(' '), ['mkdir', '-p', pyodide].map(shellQuote).join(' '), ['cp', ...files, pyodide].map(shellQuote).join(' ')];
}

/** Copies Cedar's WebAssembly and the policy files beside a function (lib/adapters/cedar/engine.ts finds the former there). */
function toolPolicyCommands(files: ToolPolicyFiles, inputDir: string, outputDir: string): string[] {
  const copy = (from: string, to: string) => ['cp', from, path.join(outputDir, to)].map(shellQuote).join(' ');
  return [
    copy(path.join(inputDir, 'node_modules', '@cedar-policy', 'cedar-wasm', 'web', CEDAR_WASM_FILE), CEDAR_WASM_FILE),
    copy(files.cedar, BUNDLED_TOOL_POLICY.cedar),
    ...(files.schema ? [copy(files.schema, BUNDLED_TOOL_POLICY.schema)] : []),
  ];
}

/** Command hooks run through a shell: quote every argument (the banner has spaces and quotes). */
export function shellQuote(argument: string): string {
  return `'${argument.replaceAll("'", `'\\''`)}'`;
}
