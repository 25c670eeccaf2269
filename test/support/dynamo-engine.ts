/**
 * The one place the tests take their DynamoDB engine from. DYNAMODB_ENDPOINT set (by hand, or by
 * `npm run test:dynamodb-local`) = that engine, shared by every test file; unset = an in-memory
 * dynalite per test file, as `npm start` embeds it. See docs/dynamodb-engines.md.
 */
import { randomBytes } from 'node:crypto';
import * as z from 'zod';
import type { LocalTableNames } from '#infra/local/backend';
import {
  dynamoEndpointSchema,
  type EngineAccess,
  EXTERNAL_ENGINE_CREDENTIALS,
  startDynamoEngine,
} from '#infra/local/dynamo-engine';
import { loadConfig } from '#shared/config';

const { DYNAMODB_ENDPOINT } = loadConfig(z.object({ DYNAMODB_ENDPOINT: dynamoEndpointSchema }));

/**
 * The named condition of the tests that are about dynalite itself (the embedded engine's persistence
 * under DATA_DIR, ...): they skip when the suite runs on another engine. Each one is listed in
 * docs/dynamodb-engines.md.
 */
export const ON_ANOTHER_ENGINE = DYNAMODB_ENDPOINT !== undefined;

/** Which engine this run uses, for messages and test names. */
export const TEST_ENGINE_NAME = ON_ANOTHER_ENGINE ? `DYNAMODB_ENDPOINT ${DYNAMODB_ENDPOINT}` : 'dynalite';

/** The engine's endpoint and credential (the embedded engine takes only its own). */
export interface TestEngine extends EngineAccess {
  /** Stops the engine if this call started it; leaves a shared external engine running. */
  close(): Promise<void>;
}

/** This test file's engine: the external one, or a fresh in-memory dynalite on a random port. */
export async function startTestEngine(): Promise<TestEngine> {
  if (DYNAMODB_ENDPOINT) {
    return { endpoint: DYNAMODB_ENDPOINT, credentials: EXTERNAL_ENGINE_CREDENTIALS, close: async () => {} };
  }
  return startDynamoEngine({ port: 0 });
}

/** A table name no other test (file or run) uses on a shared engine: `<base>-<random>`. */
export function uniqueTableName(base: string): string {
  return `${base}-${randomBytes(6).toString('hex')}`;
}

/** A set of table names of its own, for one backend on a shared engine. */
export function uniqueTableNames(): LocalTableNames {
  const suffix = randomBytes(6).toString('hex');
  return {
    datasets: `datasets-${suffix}`,
    channels: `channels-${suffix}`,
    relayKeys: `relay-keys-${suffix}`,
    relayState: `relay-state-${suffix}`,
    usage: `usage-${suffix}`,
    kbContent: `kb-content-${suffix}`,
  };
}
