import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
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
      // No EMF lines in test output; the tests that read them turn this off for their own handler.
      POWERTOOLS_METRICS_DISABLED: 'true',
    },
  },
});
