import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Integration files each start their own engines; two cores, so keep it modest.
    maxWorkers: 2,
    // Environment and per-file clean-up: test/support/setup.ts.
    setupFiles: ['test/support/setup.ts'],
  },
});
