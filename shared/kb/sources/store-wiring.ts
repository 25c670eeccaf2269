import { S3Client } from '@aws-sdk/client-s3';
import type { SourceFileStore } from '../contract.ts';
import { type SourceStoreConfig, sourceStoreLocation } from './config.ts';
import { LocalSourceFileStore, type PresigningStore, S3SourceFileStore } from './file-stores.ts';

/** The source store of this environment: the bucket deployed, the directory under `npm start` (KB_SOURCE_DIR). */
export function sourceStoreFor(config: SourceStoreConfig): SourceFileStore & Partial<PresigningStore> {
  const location = sourceStoreLocation(config);
  return 'bucket' in location
    ? new S3SourceFileStore(new S3Client({}), location.bucket)
    : new LocalSourceFileStore(location.dir);
}
