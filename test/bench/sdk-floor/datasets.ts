/**
 * SDK floor of the knowledge-base functions after create (list, detail, update, delete, paths): the
 * clients of shared/clients/dynamodb.ts and every command shared/repositories/datasets.ts sends.
 */
import { BatchWriteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';

export { documentClient } from '#shared/clients/dynamodb';
// Exported so the bundle keeps them, as the functions' bundles do.
export { BatchWriteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand };
