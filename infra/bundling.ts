import { existsSync } from 'node:fs';
import path from 'node:path';
import { OutputFormat, type BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { BuildOptions } from 'esbuild';

/** The repository root: entries, package-lock.json and agent.yml are found from here. */
export const PROJECT_ROOT = path.resolve(import.meta.dirname, '..');

/** The Lambda entries, relative to the repository root. */
export const FUNCTION_ENTRIES = {
  http: 'functions/http.ts',
  stream: 'functions/stream.ts',
  worker: 'functions/worker.ts',
} as const;

export const DEMO_SERVER_ENTRY = 'lib/demo/server.ts';
/** File names inside each function's bundle (Lambda runs the bundle from /var/task). */
export const BUNDLED_AGENT_CONFIG = 'agent.yml';
export const BUNDLED_DEMO_SERVER = 'demo-server.mjs';
export const LAMBDA_TASK_ROOT = '/var/task';

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
 * - minify and source maps: smaller code to load on a cold start; NODE_OPTIONS=--enable-source-maps
 *   maps stack traces in the logs back to the TypeScript sources. The maps leave out the sources'
 *   text (file and line is all a stack trace needs), which makes them a quarter of the size and
 *   cheaper for Node to parse at start.
 */
export const ESBUILD_SETTINGS = {
  platform: 'node',
  format: 'esm',
  target: 'node22',
  mainFields: ['module', 'main'],
  minify: true,
  sourcemap: true,
  sourcesContent: false,
  banner: ESM_REQUIRE_BANNER,
} as const;

/**
 * NODE_OPTIONS of every function: stack traces in the logs point at the TypeScript sources, through
 * the source maps (ESBUILD_SETTINGS). The cold-start benchmark starts its bundles with the same.
 */
export const FUNCTION_NODE_OPTIONS = '--enable-source-maps';

/**
 * The demo server starts itself when it is the main module (`import.meta.main`, which Node has only
 * since 22.18). Its bundle is only ever run as the main module, so the check is settled at build
 * time and the bundle runs on any Node 22.
 */
export const DEMO_SERVER_DEFINE = { 'import.meta.main': 'true' };

/** The settings for esbuild's JavaScript API (bundle-size.ts). */
export function esbuildBuildOptions(entry: string, outfile: string, define: Record<string, string> = {}): BuildOptions {
  const { banner, mainFields, ...settings } = ESBUILD_SETTINGS;
  return { ...settings, entryPoints: [entry], outfile, bundle: true, mainFields: [...mainFields], banner: { js: banner }, define, logLevel: 'warning' };
}

/** The same settings as esbuild command-line arguments (the demo server, built in a command hook). */
export function esbuildArguments(entry: string, outfile: string, define: Record<string, string> = {}): string[] {
  const settings = ESBUILD_SETTINGS;
  return [
    '--bundle', entry, `--outfile=${outfile}`,
    `--platform=${settings.platform}`, `--format=${settings.format}`, `--target=${settings.target}`,
    `--main-fields=${settings.mainFields.join(',')}`,
    ...(settings.minify ? ['--minify'] : []),
    ...(settings.sourcemap ? ['--sourcemap'] : []),
    `--sources-content=${settings.sourcesContent}`,
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
 * After esbuild, each bundle receives agent.yml and the demo MCP server compiled to one ESM file,
 * which agent.yml starts with `node` (DEMO_MCP_SERVER, relative to agent.yml's folder).
 */
export function functionBundling(agentConfigFile: string): BundlingOptions {
  const settings = ESBUILD_SETTINGS;
  return {
    forceDockerBundling: false,
    format: OutputFormat.ESM,
    target: settings.target,
    mainFields: [...settings.mainFields],
    minify: settings.minify,
    sourceMap: settings.sourcemap,
    sourcesContent: settings.sourcesContent,
    banner: settings.banner,
    bundleAwsSDK: true,
    commandHooks: {
      beforeBundling: () => [],
      beforeInstall: () => [],
      afterBundling: (inputDir: string, outputDir: string) => {
        const relativeConfig = path.relative(PROJECT_ROOT, agentConfigFile);
        const esbuild = path.join(inputDir, 'node_modules', '.bin', 'esbuild');
        const demoServer = esbuildArguments(path.join(inputDir, DEMO_SERVER_ENTRY), path.join(outputDir, BUNDLED_DEMO_SERVER), DEMO_SERVER_DEFINE);
        return [
          ['cp', path.join(inputDir, relativeConfig), path.join(outputDir, BUNDLED_AGENT_CONFIG)].map(shellQuote).join(' '),
          [esbuild, ...demoServer].map(shellQuote).join(' '),
        ];
      },
    },
  };
}

/** Command hooks run through a shell: quote every argument (the banner has spaces and quotes). */
export function shellQuote(argument: string): string {
  return `'${argument.replaceAll("'", `'\\''`)}'`;
}
