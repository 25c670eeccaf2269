import { documentClient } from '#shared/clients/dynamodb';
import { deleteDatasetEnvSchema, ENV, loadConfig } from '#shared/config';
import { datasetHandler, datasetQuery } from '#shared/envelopes/dataset';
import { deleteDatasetContent } from '#shared/kb/content-delete';
import { chunkIndexWriterFor, sourceFileStoreFor } from '#shared/kb/wiring';
import { createLogger } from '#shared/logger';
import { addMetric, BUSINESS_METRICS, createMetrics } from '#shared/metrics';
import { Slots } from '#shared/repositories/batch';
import { DynamoDatasetRepository } from '#shared/repositories/datasets';
import { KbContentRepository } from '#shared/repositories/kb-content';
import { idQuerySchema } from '#shared/schemas/dataset-fields';
import { type DeleteDatasetDeps, deleteDataset } from './delete-dataset.ts';

/** Knowledge bases whose content is deleted at once. */
const PURGE_CONCURRENCY = 16;

const config = loadConfig(deleteDatasetEnvSchema);
const logger = createLogger('delete-dataset', config.LOG_LEVEL);
const metrics = createMetrics();
// DynamoDB takes many BatchWriteItem calls at once; eight in flight keeps a 10,000-record delete short.
const repo = new DynamoDatasetRepository(documentClient, config.DATASETS_TABLE, { writeConcurrency: 8 });
const deps: DeleteDatasetDeps = { repo, now: () => new Date(), purgeContent: purgeContentOf(config, repo) };

/** The knowledge bases' content goes with them, when the function has the content table (docs/knowledge-base-api.md). */
function purgeContentOf(
  env: typeof config,
  records: Pick<DynamoDatasetRepository, 'knownEmpty'>,
): DeleteDatasetDeps['purgeContent'] {
  const table = env[ENV.kbContentTable];
  if (table === undefined) return undefined;
  const content = {
    content: new KbContentRepository(documentClient, table, { writeConcurrency: 8 }),
    index: chunkIndexWriterFor(config),
    files: sourceFileStoreFor(env),
  };
  // Several knowledge bases at once: a folder of 10,000 is one Query each, not 10,000 round trips in a row.
  const slots = new Slots(PURGE_CONCURRENCY);
  return async (teamId, datasetIds) => {
    // A knowledge base still marked empty holds nothing: 100 records read in one call instead of a Query each.
    const empty = await records.knownEmpty(teamId, datasetIds);
    const held = datasetIds.filter((id) => !empty.has(id));
    await Promise.all(held.map((id) => slots.run(() => deleteDatasetContent(teamId, id, content), undefined)));
  };
}

/** DELETE /api/core/dataset/delete?id=<id> behind the authorizer. */
export const handler = datasetHandler(
  logger,
  async (event, caller) => {
    const { deleted } = await deleteDataset({ query: datasetQuery(event, idQuerySchema), caller }, deps);
    addMetric(metrics, BUSINESS_METRICS.datasetsDeleted, deleted);
    return null;
  },
  metrics,
);
