import { documentClient } from '#shared/clients/dynamodb';
import { datasetsEnvSchema, loadConfig } from '#shared/config';
import { datasetHandler } from '#shared/envelopes/dataset';
import { datasetErrors } from '#shared/errors';
import { newObjectId } from '#shared/ids';
import { pendingSourceCollections } from '#shared/kb/sources/collections-port';
import { sourceStoreEnvSchema } from '#shared/kb/sources/config';
import { MultipartError, parseMultipart } from '#shared/kb/sources/multipart';
import { sourceStoreFor } from '#shared/kb/sources/store-wiring';
import { createLogger } from '#shared/logger';
import { DynamoDatasetRepository } from '#shared/repositories/datasets';
import * as z from '#shared/zod';
import { type CreateFileDeps, createFileCollection } from './kb-create-file-collection.ts';

const config = loadConfig(z.extend(datasetsEnvSchema, sourceStoreEnvSchema.shape));
const logger = createLogger('kb-create-file-collection', config.LOG_LEVEL);
const deps: CreateFileDeps = {
  // INTEGRATOR: kb-core's collections replace this placeholder (shared/kb/sources/collections-port.ts).
  collections: pendingSourceCollections(new DynamoDatasetRepository(documentClient, config.DATASETS_TABLE)),
  store: sourceStoreFor(config),
  newId: () => newObjectId(),
};

/** POST /api/core/dataset/collection/create/localFile (multipart/form-data) behind the authorizer. */
export const handler = datasetHandler(logger, async (event, caller) => {
  const upload = await parseMultipart(event).catch((error: unknown) => {
    throw error instanceof MultipartError ? datasetErrors.invalidParams(error.message) : error;
  });
  return createFileCollection({ upload, caller }, deps);
});
