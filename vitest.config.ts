import { configDefaults, defineConfig } from 'vitest/config';
import { FUNCTION_NODE_OPTIONS } from './infra/function-runtime.ts';

/**
 * Tests that judge wall-clock timing across processes (the MCP conformance scenario sse-retry
 * allows a reconnection 200 ms late): they run after the rest, alone, so the suite's own parallel
 * load does not decide them.
 */
const TIMING_SENSITIVE = ['test/integration/mcp-conformance.test.ts'];

/**
 * Tests whose behaviour rests on AsyncLocalStorage (the log context, the trace context, the caller's
 * token): they run once more with the Node options the functions run with
 * (infra/function-runtime.ts: AsyncLocalStorage over AsyncContextFrame rather than async_hooks).
 */
const ASYNC_CONTEXT = [
  'test/unit/log-context.test.ts',
  'test/unit/trace-context.test.ts',
  'test/integration/mcp-token-exchange.test.ts',
  'test/integration/mcp-caller-meta.test.ts',
  'test/integration/worker-telemetry.test.ts',
  'test/e2e/telemetry.test.ts',
  'test/e2e/telemetry-mcp.test.ts',
];

export default defineConfig({
  test: {
    // Generous: a stack synth or a process start can take tens of seconds on a loaded 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Integration and end-to-end tests spawn real MCP servers and processes; two cores are plenty busy.
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: 'suite', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, ...TIMING_SENSITIVE] } },
      { extends: true, test: { name: 'timing', include: TIMING_SENSITIVE, sequence: { groupOrder: 1 } } },
      { extends: true, test: { name: 'async-context-frame', include: ASYNC_CONTEXT, execArgv: [FUNCTION_NODE_OPTIONS] } },
    ],
  },
});
