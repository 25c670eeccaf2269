import type { APIGatewayProxyEvent } from 'aws-lambda';
import { datasetsEnvSchema, loadConfig } from '#shared/config';
import { datasetBody, datasetHandler } from '#shared/envelopes/dataset';
import { datasetErrors } from '#shared/errors';
import type { CallerContext } from '#shared/http';
import { newObjectId } from '#shared/ids';
import { sourceCollectionsOn } from '#shared/kb/collections';
import { linkEnvSchema, SOURCES_ENV, sourceStoreEnvSchema } from '#shared/kb/sources/config';
import { readLinkSource } from '#shared/kb/sources/link';
import { MultipartError, parseMultipart } from '#shared/kb/sources/multipart';
import { createFileIdBodySchema, createLinkBodySchema, presignUploadBodySchema } from '#shared/kb/sources/settings';
import { publicBaseUrl } from '#shared/kb/sources/source-links';
import { sourceStoreFor, uploadStoreFor } from '#shared/kb/sources/store-wiring';
import { sourceContentFromEnv } from '#shared/kb/wiring';
import { createLogger } from '#shared/logger';
import { collectionIdSchema } from '#shared/schemas/kb-content';
import * as z from '#shared/zod';
import { createBackupCollection, createTemplateCollection } from './create-backup.ts';
import { createFileCollection } from './create-file.ts';
import { createLinkCollection } from './create-link.ts';
import { syncLinkCollection } from './sync-link.ts';
import { createFromUpload, presignUpload } from './uploads.ts';

const config = loadConfig(z.extend(z.extend(datasetsEnvSchema, sourceStoreEnvSchema.shape), linkEnvSchema.shape));
const logger = createLogger('kb-create-source-collection', config.LOG_LEVEL);
// The collections core (shared/kb/collections.ts): stores the collection and queues its training.
const content = sourceContentFromEnv();
const collections = sourceCollectionsOn(content);
const store = sourceStoreFor(config);
const uploads = uploadStoreFor(config);
const allowedHosts = config[SOURCES_ENV.linkAllowedHosts];
// collection/sync reads a link collection's page again, as the training reads it (the link reader alone: the file
// parsers stay out of this function's bundle).
const readLink = (rawLink: string, selector?: string) =>
  readLinkSource(rawLink, { allowedHosts, ...(selector ? { selector } : {}) });

export const LINK_PATH = '/api/core/dataset/collection/create/link';
export const SYNC_PATH = '/api/core/dataset/collection/sync';
export const BACKUP_PATH = '/api/core/dataset/collection/create/backup';
export const TEMPLATE_PATH = '/api/core/dataset/collection/create/template';
export const FILE_ID_PATH = '/api/core/dataset/collection/create/fileId';
/** FastGPT's two spellings of the upload address call (v4.14 at the dataset's root, later under `file/`). */
export const PRESIGN_PATHS: readonly string[] = [
  '/api/core/dataset/presignDatasetFilePostUrl',
  '/api/core/dataset/file/presignDatasetFilePostUrl',
];

async function createFile(event: APIGatewayProxyEvent, caller: CallerContext) {
  const upload = await parseMultipart(event).catch((error: unknown) => {
    throw error instanceof MultipartError ? datasetErrors.invalidParams(error.message) : error;
  });
  const deps = { collections, store, newId: () => newObjectId() };
  if (event.resource === BACKUP_PATH) return createBackupCollection({ upload, caller }, deps);
  if (event.resource === TEMPLATE_PATH) return createTemplateCollection({ upload, caller }, deps);
  return createFileCollection({ upload, caller }, deps);
}

/**
 * POST /api/core/dataset/collection/create/link (JSON), …/create/localFile, …/create/backup and …/create/template
 * (multipart/form-data), …/collection/sync, and the web client's file import (…/presignDatasetFilePostUrl, then
 * …/collection/create/fileId)
 * behind the authorizer: one function for the calls of collections with a source (one core each), so the stack stays
 * well under CloudFormation's resource limit; the link calls never touch the bucket the upload writes.
 */
export const handler = datasetHandler(logger, (event, caller) => {
  if (event.resource === LINK_PATH) {
    return createLinkCollection(
      { body: datasetBody(event, createLinkBodySchema), caller },
      { collections, allowedHosts },
    );
  }
  if (PRESIGN_PATHS.includes(event.resource)) {
    return presignUpload(
      { body: datasetBody(event, presignUploadBodySchema), caller, baseUrl: publicBaseUrl(event) },
      { datasets: content.datasets, uploads, newId: () => newObjectId(), now: () => new Date() },
    );
  }
  if (event.resource === FILE_ID_PATH) {
    return createFromUpload(
      { body: datasetBody(event, createFileIdBodySchema), caller },
      { collections, store, uploads, newId: () => newObjectId() },
    );
  }
  if (event.resource === SYNC_PATH) {
    return syncLinkCollection({ body: datasetBody(event, collectionIdSchema), caller }, { ...content, readLink });
  }
  return createFile(event, caller);
});
