/**
 * SDK floor of the channel review functions (list, detail, update, delete, batch delete): the clients of
 * shared/clients/dynamodb.ts (module scope) and the commands the channel repository sends.
 */
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  GetCommand,
  ScanCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';

export { documentClient } from '#shared/clients/dynamodb';
// Exported so the bundle keeps them, as the functions' bundles do.
export { BatchGetCommand, BatchWriteCommand, DeleteCommand, GetCommand, ScanCommand, UpdateCommand };
