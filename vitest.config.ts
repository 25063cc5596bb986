import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Generous: a stack synth or a process start can take tens of seconds on a loaded 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Integration and end-to-end tests spawn real MCP servers and processes; two cores are plenty busy.
    maxWorkers: 2,
  },
});
