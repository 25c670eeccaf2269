/**
 * vitest globalSetup of `npm run test:dynamodb-local`: starts DynamoDB Local once for the whole run
 * and hands its endpoint to every test file through DYNAMODB_ENDPOINT, which
 * test/support/dynamo-engine.ts reads. The teardown stops it, also when tests failed.
 */
import { startDynamoDbLocal } from './dynamodb-local.ts';

export default async function setup(): Promise<() => Promise<void>> {
  const local = await startDynamoDbLocal();
  process.env.DYNAMODB_ENDPOINT = local.endpoint;
  process.stdout.write(`DynamoDB Local on ${local.endpoint} (in memory, shared database)\n`);
  return () => local.stop();
}
