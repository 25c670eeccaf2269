/**
 * SDK floor of the key API (`/api/keys`, `/api/key/{id}`): the clients of shared/clients/dynamodb.ts (module scope)
 * and the commands the relay keys repository sends.
 */
import { DeleteCommand, PutCommand, QueryCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';

export { documentClient } from '#shared/clients/dynamodb';
// Exported so the bundle keeps them, as the functions' bundles do.
export { DeleteCommand, PutCommand, QueryCommand, ScanCommand, UpdateCommand };
