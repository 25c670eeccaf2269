/**
 * SDK floor of create-dataset: only the AWS SDK it cannot do without, the clients of
 * shared/clients/dynamodb.ts (module scope) and the commands its repository sends.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';

export { documentClient } from '#shared/clients/dynamodb';
// Exported so the bundle keeps them, as the function's bundle does.
export { GetCommand, PutCommand };
