import { configDefaults, defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config.ts';

// `npm run test:dynamodb-local`: the suite on AWS's DynamoDB Local instead of dynalite. The suites that never touch a
// DynamoDB engine (unit tests with mocked clients, the synthesized stack, the documents and the OpenAPI files) ran
// once already under `npm test`; they are left out here, so CI spends its second run on what the engine changes.
export default mergeConfig(
  base,
  defineConfig({
    test: {
      globalSetup: ['test/support/dynamodb-local.global-setup.ts'],
      exclude: [...configDefaults.exclude, 'test/unit/**', 'test/infra/**', 'test/docs/**', 'test/openapi/**'],
    },
  }),
);
