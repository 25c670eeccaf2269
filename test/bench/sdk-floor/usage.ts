/**
 * SDK floor of the usage API (GET /api/usage): the clients of shared/clients/dynamodb.ts (module scope) and the
 * one command the usage repository sends.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';

export { documentClient } from '#shared/clients/dynamodb';
// Exported so the bundle keeps it, as the function's bundle does.
export { QueryCommand };
