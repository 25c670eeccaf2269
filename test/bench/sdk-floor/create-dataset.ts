/**
 * SDK floor of create-dataset: only the AWS SDK it cannot do without, the clients set up as
 * shared/clients/dynamodb.ts does at module scope and the commands its repository sends.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';

export const documentClient = DynamoDBDocumentClient.from(new DynamoDBClient({}), {
  marshallOptions: { removeUndefinedValues: true },
});
// Exported so the bundle keeps them, as the function's bundle does.
export { GetCommand, PutCommand };
