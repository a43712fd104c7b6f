import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    // DATABASE_URL of the embedded PostgreSQL, when the suite started one (docs/testing.md).
    setupFiles: ['test/support/setup-env.ts'],
    // Files run in parallel (each has its own database and task queue); 2 cores here.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // First start may build the Temporal CLI with Go (minutes).
    teardownTimeout: 30_000,
  },
});
