/**
 * The direction of dependencies, checked by `npm test` (npm run deps):
 *
 *   functions/ ─► lib/ composition (build-agent, configured-gateway, local, queue, http)
 *                   ─► lib/agent ─► lib/core ◄─ lib/adapters (they implement the core's ports)
 *
 * The core and the agent see only ports; SDKs live at the edges.
 */
const SDKS = '^node_modules/(openai|@aws-sdk|@aws-lambda-powertools|@middy|@modelcontextprotocol|aws-lambda|jose|dynalite)(/|$)';

module.exports = {
  forbidden: [
    {
      name: 'core-is-pure',
      comment: 'lib/core holds the types and rules everything else uses; it depends on nothing but Node.',
      severity: 'error',
      from: { path: '^lib/core/' },
      to: { pathNot: ['^lib/core/', '^node:'], dependencyTypesNot: ['core'] },
    },
    {
      name: 'agent-sees-only-ports',
      comment: 'The loop and the turn service reach models, tools and the store through lib/core/ports.ts.',
      severity: 'error',
      from: { path: '^lib/agent/' },
      to: { path: ['^lib/(adapters|http|local|queue|demo|testing)/', '^lib/(build-agent|configured-gateway|index)\\.ts$', '^functions/', '^infra/'] },
    },
    {
      name: 'agent-without-sdks',
      comment: 'Only ajv (argument validation) among npm packages: the SDKs belong to adapters.',
      severity: 'error',
      from: { path: '^lib/(agent|core|config|http|queue|json-schema)/' },
      to: { dependencyTypes: ['npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-no-pkg', 'npm-unknown'], path: SDKS },
    },
    {
      name: 'adapters-point-inward',
      comment: 'Adapters implement ports; they never call the agent or the HTTP layer.',
      severity: 'error',
      from: { path: '^lib/adapters/' },
      to: { path: ['^lib/(agent|http|local|demo)/', '^lib/(build-agent|configured-gateway|index)\\.ts$', '^functions/', '^infra/'] },
    },
    {
      name: 'http-without-adapters',
      comment: 'lib/http maps requests to the agent and errors to statuses; it knows no SDK and no adapter.',
      severity: 'error',
      from: { path: '^lib/http/' },
      to: { path: ['^lib/adapters/', '^functions/', '^infra/'] },
    },
    {
      name: 'config-stands-alone',
      comment: 'The configuration schema is read by everything and reads nothing of the product.',
      severity: 'error',
      from: { path: '^lib/config/' },
      to: { path: ['^lib/(agent|adapters|http|local|queue|demo)/', '^functions/', '^infra/'] },
    },
    {
      name: 'lib-without-lambda-runtime',
      comment: 'middy and the aws-lambda types belong to functions/: lib/ declares the event fields it reads (lib/http/lambda, lib/queue).',
      severity: 'error',
      from: { path: '^lib/' },
      to: { path: '^node_modules/(@middy|@types/aws-lambda|aws-lambda)(/|$)' },
    },
    {
      name: 'lib-not-to-entry-points',
      comment: 'functions/ and infra/ are entry points and the stack: nothing in lib/ imports them.',
      severity: 'error',
      from: { path: '^lib/' },
      to: { path: ['^functions/', '^infra/'] },
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
