import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

// One client per execution environment, reused across invocations. The SDK honours
// AWS_ENDPOINT_URL_DYNAMODB, which points it at dynalite locally and in tests.
export const dynamoClient = new DynamoDBClient({});

/** Document client over `dynamoClient`; undefined attributes are dropped, not rejected. */
export const documentClient = DynamoDBDocumentClient.from(dynamoClient, {
  marshallOptions: { removeUndefinedValues: true },
});
