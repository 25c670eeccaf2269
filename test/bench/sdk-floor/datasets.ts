/**
 * SDK floor of the knowledge-base functions after create (list, detail, update, delete, paths): the
 * clients set up as shared/clients/dynamodb.ts does and every command shared/repositories/datasets.ts sends.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchWriteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';

export const documentClient = DynamoDBDocumentClient.from(new DynamoDBClient({}), {
  marshallOptions: { removeUndefinedValues: true },
});
// Exported so the bundle keeps them, as the functions' bundles do.
export { BatchWriteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand };
