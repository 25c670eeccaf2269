/**
 * SDK floor of the knowledge base's file and read functions: the DynamoDB clients of shared/clients/dynamodb.ts, an S3
 * client and the object commands the source store sends (shared/kb/sources/file-stores.ts).
 */
import { DeleteObjectsCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { GetCommand } from '@aws-sdk/lib-dynamodb';

export { documentClient } from '#shared/clients/dynamodb';
export const s3Client = new S3Client({});
// Exported so the bundle keeps them, as the functions' bundles do.
export { DeleteObjectsCommand, GetCommand, GetObjectCommand, PutObjectCommand };
