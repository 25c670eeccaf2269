import { documentClient } from '#shared/clients/dynamodb';
import { ENV, kbPreviewEnvSchema, loadConfig } from '#shared/config';
import { datasetBody, datasetHandler } from '#shared/envelopes/dataset';
import { splitTextAsFastGpt } from '#shared/kb/chunking';
import { linkEnvSchema, SOURCES_ENV, sourceStoreEnvSchema } from '#shared/kb/sources/config';
import { fileText } from '#shared/kb/sources/files';
import { createSourceReader } from '#shared/kb/sources/reader';
import { previewChunksBodySchema } from '#shared/kb/sources/settings';
import { sourceStoreFor, uploadStoreFor } from '#shared/kb/sources/store-wiring';
import { createLogger } from '#shared/logger';
import { DynamoDatasetRepository } from '#shared/repositories/datasets';
import { KbContentRepository } from '#shared/repositories/kb-content';
import * as z from '#shared/zod';
import { type PreviewChunksDeps, previewChunks } from './preview-chunks.ts';

const config = loadConfig(z.extend(z.extend(kbPreviewEnvSchema, sourceStoreEnvSchema.shape), linkEnvSchema.shape));
const logger = createLogger('kb-preview-chunks', config.LOG_LEVEL);
const store = sourceStoreFor(config);
const deps: PreviewChunksDeps = {
  datasets: new DynamoDatasetRepository(documentClient, config[ENV.datasetsTable]),
  content: new KbContentRepository(documentClient, config[ENV.kbContentTable]),
  uploads: uploadStoreFor(config),
  files: store,
  // The training's reader (shared/kb/sources/reader.ts): the link rules with LINK_ALLOWED_HOSTS, the file parsers.
  sources: createSourceReader({ store, allowedHosts: config[SOURCES_ENV.linkAllowedHosts] }),
  fileText,
  split: splitTextAsFastGpt,
};

/**
 * POST /api/core/dataset/file/getPreviewChunks behind the authorizer: a source's first chunks, cut as its training will
 * cut them. A function of its own: it holds the file parsers (PDF, DOCX), which the create function keeps out of its
 * bundle, and reads only (the datasets, a collection, the source bucket).
 */
export const handler = datasetHandler(logger, (event, caller) =>
  previewChunks({ body: datasetBody(event, previewChunksBodySchema), caller }, deps),
);
