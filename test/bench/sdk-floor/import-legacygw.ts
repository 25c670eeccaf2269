/**
 * SDK floor of import-legacygw: the DynamoDB clients set up as shared/clients/dynamodb.ts does at
 * module scope, the commands its repository sends, and the MariaDB driver it imports.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, BatchWriteCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import mysql from 'mysql2';

export const documentClient = DynamoDBDocumentClient.from(new DynamoDBClient({}), {
  marshallOptions: { removeUndefinedValues: true },
});
// Exported so the bundle keeps them, as the function's bundle does.
export { BatchGetCommand, BatchWriteCommand };
export const createConnection = mysql.createConnection;
