/**
 * SDK floor of import-legacygw: the DynamoDB clients of shared/clients/dynamodb.ts
 * (module scope), the commands its repository sends, and the MariaDB driver it imports.
 */
import { BatchGetCommand, BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import mysql from 'mysql2';

export { documentClient } from '#shared/clients/dynamodb';
// Exported so the bundle keeps them, as the function's bundle does.
export { BatchGetCommand, BatchWriteCommand };
export const createConnection = mysql.createConnection;
