import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Integration and end-to-end tests spawn real MCP servers and processes; two cores are plenty busy.
    maxWorkers: 2,
  },
});
