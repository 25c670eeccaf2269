/**
 * The one vitest setup file: every test file starts from the same environment (no AWS account, no
 * network, quiet SDK and Powertools), and a file's stubbed variables never leak into the next file that
 * the same worker runs. Output is read with captureOutput (test/support/capture-output.ts); handlers are
 * loaded with loadHandler (test/support/handler.ts). A response of the test server that breaks its
 * OpenAPI contract (test/support/contract.ts) fails the test during which it was sent, or the file when
 * it was sent from a beforeAll/afterAll hook.
 */
import { afterAll, afterEach, vi } from 'vitest';
import { failOnContractViolations } from './contract-violations.ts';

Object.assign(process.env, {
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'test',
  AWS_SECRET_ACCESS_KEY: 'test',
  AWS_EC2_METADATA_DISABLED: 'true',
  POWERTOOLS_DEV: 'false',
  // No EMF lines in test output; the tests that read them turn this off for their own handlers.
  POWERTOOLS_METRICS_DISABLED: 'true',
});

afterEach(failOnContractViolations);

afterAll(() => {
  vi.unstubAllEnvs();
  failOnContractViolations();
});
