import { S3Client } from '@aws-sdk/client-s3';
import type { SourceFileStore } from '../contract.ts';
import { type LinkConfig, SOURCES_ENV, type SourceStoreConfig, sourceStoreLocation } from './config.ts';
import { LocalSourceFileStore, type PresigningStore, S3SourceFileStore } from './file-stores.ts';
import { createSourceReader } from './reader.ts';
import { LocalUploadStore, S3UploadStore, type UploadStore } from './upload-stores.ts';

/** The source store of this environment: the bucket deployed, the directory under `npm start` (KB_SOURCE_DIR). */
export function sourceStoreFor(config: SourceStoreConfig): SourceFileStore & Partial<PresigningStore> {
  const location = sourceStoreLocation(config);
  return 'bucket' in location
    ? new S3SourceFileStore(new S3Client({}), location.bucket)
    : new LocalSourceFileStore(location.dir);
}

/**
 * The training's SourceReader from its environment (KB_SOURCE_BUCKET or KB_SOURCE_DIR, LINK_ALLOWED_HOSTS): read once,
 * at cold start, like every function's configuration.
 */
export function sourceReaderFor(config: SourceStoreConfig & LinkConfig): ReturnType<typeof createSourceReader> {
  return createSourceReader({ store: sourceStoreFor(config), allowedHosts: config[SOURCES_ENV.linkAllowedHosts] });
}

/** The uploads before a collection of this environment: the bucket's `uploads/` deployed, the directory locally. */
export function uploadStoreFor(config: SourceStoreConfig): UploadStore {
  const location = sourceStoreLocation(config);
  return 'bucket' in location
    ? new S3UploadStore(new S3Client({}), location.bucket)
    : new LocalUploadStore(location.dir);
}
