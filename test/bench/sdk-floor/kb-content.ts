/**
 * SDK floor of the knowledge base's content functions (collections, data, training status): the clients of
 * shared/clients/dynamodb.ts, the commands shared/repositories/kb-content.ts sends, and the SQS and S3 clients and
 * commands of the training queue and the source store (shared/kb/wiring.ts builds them at module load).
 */
import { DeleteObjectsCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { BatchWriteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';

export { documentClient } from '#shared/clients/dynamodb';
// Exported so the bundle keeps them, as the functions' bundles do.
export {
  BatchWriteCommand,
  DeleteObjectsCommand,
  GetCommand,
  GetObjectCommand,
  PutCommand,
  PutObjectCommand,
  QueryCommand,
  SendMessageCommand,
  UpdateCommand,
};
export const clients = [new S3Client({}), new SQSClient({})];
