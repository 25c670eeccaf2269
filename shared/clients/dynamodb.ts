import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

// One client per execution environment, reused across invocations. The SDK honours
// AWS_ENDPOINT_URL_DYNAMODB, which points it at dynalite locally and in tests.
export const dynamoClient = new DynamoDBClient({});
// The SDK logs each call to `config.logger`, a no-op here (the functions log with Powertools), yet its logger
// middleware still runs every request through the sensitive-data filter to hand the copy to that no-op: a walk of
// every item of every BatchWriteItem, about 3% of an import's CPU (docs/performance.md). Nothing was logged before
// and nothing is now.
dynamoClient.middlewareStack.remove('loggerMiddleware');

/** Document client over `dynamoClient`; undefined attributes are dropped, not rejected. */
export const documentClient = DynamoDBDocumentClient.from(dynamoClient, {
  marshallOptions: { removeUndefinedValues: true },
});
