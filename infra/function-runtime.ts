/**
 * The Node.js options every function runs with (set as `NODE_OPTIONS` by infra/agent-function.ts,
 * for its Node.js 22 runtime). Kept free of CDK imports: the tests and the benchmarks run the
 * bundles with the same options.
 *
 * `--experimental-async-context-frame`: AsyncLocalStorage (the log context, the trace context, the
 * caller's token) kept by V8's continuation data instead of async_hooks' promise hooks, which ran
 * on every promise of every turn once a context was set: about 5% of a warm round's CPU
 * (docs/benchmarks.md). Node.js 24 made it the default; on 22 it is a flag. The suite runs the
 * tests whose behaviour rests on AsyncLocalStorage with it too (vitest.config.ts).
 */
export const FUNCTION_NODE_OPTIONS = '--experimental-async-context-frame';
