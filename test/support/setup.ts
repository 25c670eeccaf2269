/**
 * The one vitest setup file: every test file starts from the same environment (no AWS account, no
 * network, quiet SDK and Powertools), and a file's stubbed variables never leak into the next file that
 * the same worker runs. Output is read with captureOutput (test/support/capture-output.ts); handlers are
 * loaded with loadHandler (test/support/handler.ts).
 */
import { afterAll, vi } from 'vitest';

Object.assign(process.env, {
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'test',
  AWS_SECRET_ACCESS_KEY: 'test',
  AWS_EC2_METADATA_DISABLED: 'true',
  POWERTOOLS_DEV: 'false',
});

afterAll(() => {
  vi.unstubAllEnvs();
});
