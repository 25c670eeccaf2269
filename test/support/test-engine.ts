import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll } from 'vitest';
import { localDynamoClient } from '#infra/local/dynamo-engine';
import { startTestEngine, type TestEngine } from './dynamo-engine.ts';

/**
 * The test file's engine, with a client and a document client over it: started before its tests, closed after. Read
 * `engine`, `client` and `documents` from its tests on.
 */
export function useTestEngine(): {
  readonly engine: TestEngine;
  readonly client: DynamoDBClient;
  readonly documents: DynamoDBDocumentClient;
} {
  let started: { engine: TestEngine; client: DynamoDBClient; documents: DynamoDBDocumentClient } | undefined;
  beforeAll(async () => {
    const engine = await startTestEngine();
    const client = localDynamoClient(engine);
    started = { engine, client, documents: DynamoDBDocumentClient.from(client) };
  });
  afterAll(async () => {
    started?.client.destroy();
    await started?.engine.close();
  });
  const get = () => {
    if (!started) throw new Error('The test engine is not started');
    return started;
  };
  return {
    get engine() {
      return get().engine;
    },
    get client() {
      return get().client;
    },
    get documents() {
      return get().documents;
    },
  };
}
