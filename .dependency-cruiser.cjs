/**
 * The direction of dependencies, checked by `npm test` (npm run deps):
 *
 *   functions/ ─► lib/ composition (build-agent, configured-gateway, local, queue, front-doors ─► http)
 *                   ─► lib/agent ─► lib/core ◄─ lib/adapters (they implement the core's ports)
 *
 * The core and the agent see only ports; SDKs live at the edges.
 *
 * Written as an allow-list: each folder of lib/ says what it may import, and a dependency no
 * `allowed` rule names is an error. A new folder therefore starts with no permission at all, so
 * the rules check folders that did not exist when they were written (a folder added under lib/
 * gets its own rule here, which is where its place in the picture above is decided).
 */
const NODE = { dependencyTypes: ['core'] };
/** Where a folder's code may go: lib/<folder>/ for each name. */
const libFolders = (...names) => `^lib/(${names.join('|')})/`;
const npm = (...names) => `^node_modules/(${names.join('|')})(/|$)`;

module.exports = {
  allowed: [
    {
      comment: 'Node built-ins, from anywhere.',
      from: {},
      to: NODE,
    },
    {
      comment: 'lib/core holds the types and rules everything else uses; it depends on nothing but Node.',
      from: { path: '^lib/core/' },
      to: { path: libFolders('core') },
    },
    {
      comment: 'One compiler of tool schemas, on ajv.',
      from: { path: '^lib/json-schema/' },
      to: { path: [libFolders('json-schema', 'core'), npm('ajv')] },
    },
    {
      comment: 'The configuration schema is read by everything and reads nothing of the product.',
      from: { path: '^lib/config/' },
      to: { path: [libFolders('config', 'core'), npm('zod', 'yaml')] },
    },
    {
      comment: 'The turn service (a turn\'s life, the loop, reading conversations, the extension API) reaches models, tools and the store through the ports of lib/core; no SDK but ajv. It never imports a strategy or an extension: lib/create-agent.ts chooses them.',
      from: { path: '^lib/agent/' },
      to: { path: [libFolders('agent', 'core', 'json-schema'), npm('ajv')] },
    },
    {
      comment: 'Only the two files that read agent.yml see its type; the rest of lib/agent takes the slices it needs.',
      from: { path: '^lib/agent/(agent|settings)\\.ts$' },
      to: { path: '^lib/config/load\\.ts$', dependencyTypes: ['type-only'] },
    },
    {
      comment: 'Turn strategies (react, plan-execute, …): written on the loop and the extension API of lib/agent, chosen by lib/strategies/configured.ts.',
      from: { path: '^lib/strategies/' },
      to: { path: libFolders('strategies', 'agent', 'core', 'config') },
    },
    {
      comment: 'Extensions (todo list, tool routing, memory, summaries, trace, MCP client features): hooks of lib/agent/extension-api, turned on by lib/extensions/configured.ts.',
      from: { path: '^lib/extensions/' },
      to: { path: [libFolders('extensions', 'agent', 'core', 'json-schema', 'config'), npm('ajv')] },
    },
    {
      comment: 'Model providers: each maps `model` settings to an adapter of lib/adapters (or the demo model); lib/providers/configured-model.ts chooses by model.provider.',
      from: { path: '^lib/providers/' },
      to: { path: [libFolders('providers', 'adapters', 'demo', 'core', 'config'), '^node_modules/'] },
    },
    {
      comment: 'Adapters implement the ports of lib/core with the SDKs and declare their own option types (agent.yml\'s validated values fit them where a composition root passes them in); they never read agent.yml or the environment names of lib/config, nor call the agent, the HTTP layer, the queue worker or the local server.',
      from: { path: '^lib/adapters/' },
      to: { path: [libFolders('adapters', 'core', 'json-schema'), '^node_modules/'] },
    },
    {
      comment: 'lib/http is what every front door shares (request and response types, bodies, CORS, the status table, SSE, the Lambda adaptation, the dispatcher that walks the list of doors); it knows no door, no SDK and no adapter.',
      from: { path: '^lib/http/' },
      to: { path: libFolders('http', 'agent', 'core', 'config') },
    },
    {
      comment: 'A front door (lib/front-doors/<door>/: native, openai-compatible, …) is a protocol at the edge: its own folder, lib/http, the agent\'s API, the core and the configuration, and any SDK its protocol needs (an MCP or A2A server). It never reaches another door, an adapter or a provider: the agent is its one way in.',
      from: { path: '^lib/front-doors/([^/]+)/' },
      to: { path: ['^lib/front-doors/$1/', libFolders('http', 'agent', 'core', 'config', 'json-schema'), '^node_modules/'] },
    },
    {
      comment: 'The list of the doors a deployment serves (lib/front-doors/configured.ts) and the handlers over it.',
      from: { path: '^lib/front-doors/[^/]+\\.ts$' },
      to: { path: ['^lib/front-doors/', libFolders('http', 'core', 'config')] },
    },
    {
      comment: 'The queue worker turns SQS and EventBridge events into turns of the agent.',
      from: { path: '^lib/queue/' },
      to: { path: libFolders('queue', 'agent', 'core', 'config') },
    },
    {
      comment: 'npm start: the HTTP layer on an embedded DynamoDB, and (AUTH_MODE=oidc) the OIDC verifier the deployed authorizer uses.',
      from: { path: '^lib/local/' },
      to: { path: [libFolders('local', 'http', 'adapters/dynamodb', 'adapters/oidc', 'core', 'config'), npm('@aws-sdk/client-dynamodb', 'dynalite')] },
    },
    {
      comment: 'The demo MCP server and the offline demo model, a model provider like the adapters (lib/providers/model-provider.ts): the MCP SDK, the core and the configuration only.',
      from: { path: '^lib/demo/' },
      to: { path: [libFolders('demo', 'core', 'config'), npm('@modelcontextprotocol/sdk', 'zod')] },
    },
    {
      comment: 'The evaluation runner (npm run eval): suites, checks, scoring and reports over the Agent; the agent itself is built by its command (functions/eval.ts) with the composition roots.',
      from: { path: '^lib/evals/' },
      to: { path: [libFolders('evals', 'core', 'config', 'agent', 'providers'), '^lib/build-agent\\.ts$', npm('zod', 'yaml')] },
    },
    {
      comment: 'Test doubles of the ports, exported for embedding code.',
      from: { path: '^lib/testing/' },
      to: { path: libFolders('testing', 'core') },
    },
    {
      comment: 'The chat page: browser modules, among themselves only.',
      from: { path: '^lib/page/' },
      to: { path: libFolders('page') },
    },
    {
      comment: 'The composition roots at the top of lib/ wire adapters to the agent.',
      from: { path: '^lib/[^/]+\\.ts$' },
      to: { path: ['^lib/', '^node_modules/'] },
    },
    {
      comment: 'Entry points: anything of lib/ and the runtime, never the stack.',
      from: { path: '^functions/' },
      to: { path: ['^lib/', '^functions/', '^node_modules/'] },
    },
    {
      comment: 'The stack reads the configuration, the names it shares with the code (table keys, queue events) and the environment names; it bundles functions/ by path, never by import.',
      from: { path: '^infra/' },
      to: { path: ['^infra/', libFolders('config', 'core', 'queue'), '^lib/adapters/dynamodb/table\\.ts$', '^node_modules/'] },
    },
  ],
  allowedSeverity: 'error',
  forbidden: [
    {
      name: 'lib-without-lambda-runtime',
      comment: 'middy and the aws-lambda types belong to functions/: lib/ declares the event fields it reads (lib/http/lambda, lib/queue).',
      severity: 'error',
      from: { path: '^lib/' },
      to: { path: '^node_modules/(@middy|@types/aws-lambda|aws-lambda)(/|$)' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      from: { path: '^(lib|functions|infra)/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(cdk\\.out|dist|test)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
