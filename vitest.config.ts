import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    // Fails a test whose HTTP responses broke the OpenAPI contract (test/support/local-server.ts checks them).
    setupFiles: ['test/support/contract-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Integration files each start their own engines; two cores, so keep it modest.
    maxWorkers: 2,
    env: {
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
      AWS_EC2_METADATA_DISABLED: 'true',
      POWERTOOLS_DEV: 'false',
    },
  },
});
