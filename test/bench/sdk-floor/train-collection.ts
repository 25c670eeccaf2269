/**
 * SDK floor of the training function: the relay's (the routing core's commands and HTTP agents) plus the S3 client
 * the source store reads with.
 */
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';

export * from './relay.ts';
export { GetObjectCommand };
export const s3 = new S3Client({});
