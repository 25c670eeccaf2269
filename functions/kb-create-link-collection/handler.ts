import { documentClient } from '#shared/clients/dynamodb';
import { datasetsEnvSchema, loadConfig } from '#shared/config';
import { datasetBody, datasetHandler } from '#shared/envelopes/dataset';
import { pendingSourceCollections } from '#shared/kb/sources/collections-port';
import { linkEnvSchema, SOURCES_ENV } from '#shared/kb/sources/config';
import { createLinkBodySchema } from '#shared/kb/sources/settings';
import { createLogger } from '#shared/logger';
import { DynamoDatasetRepository } from '#shared/repositories/datasets';
import * as z from '#shared/zod';
import { type CreateLinkDeps, createLinkCollection } from './kb-create-link-collection.ts';

const config = loadConfig(z.extend(datasetsEnvSchema, linkEnvSchema.shape));
const logger = createLogger('kb-create-link-collection', config.LOG_LEVEL);
const deps: CreateLinkDeps = {
  // INTEGRATOR: kb-core's collections replace this placeholder (shared/kb/sources/collections-port.ts).
  collections: pendingSourceCollections(new DynamoDatasetRepository(documentClient, config.DATASETS_TABLE)),
  allowedHosts: config[SOURCES_ENV.linkAllowedHosts],
};

/** POST /api/core/dataset/collection/create/link behind the authorizer. */
export const handler = datasetHandler(logger, (event, caller) =>
  createLinkCollection({ body: datasetBody(event, createLinkBodySchema), caller }, deps),
);
