/**
 * SDK floor of the channel review functions (list, detail, update, delete, batch delete): the clients set up as
 * shared/clients/dynamodb.ts does at module scope and the commands the channel repository sends.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  ScanCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';

export const documentClient = DynamoDBDocumentClient.from(new DynamoDBClient({}), {
  marshallOptions: { removeUndefinedValues: true },
});
// Exported so the bundle keeps them, as the functions' bundles do.
export { BatchGetCommand, BatchWriteCommand, DeleteCommand, GetCommand, ScanCommand, UpdateCommand };
