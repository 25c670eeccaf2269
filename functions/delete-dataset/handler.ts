import { SQSClient } from '@aws-sdk/client-sqs';
import { documentClient } from '#shared/clients/dynamodb';
import { deleteDatasetEnvSchema, ENV, loadConfig } from '#shared/config';
import { datasetHandler, datasetQuery } from '#shared/envelopes/dataset';
import { type TrainingQueue, trainingQueueFor } from '#shared/kb/training-queue';
import { createLogger } from '#shared/logger';
import { addMetric, BUSINESS_METRICS, createMetrics } from '#shared/metrics';
import { Slots } from '#shared/repositories/batch';
import { DynamoDatasetRepository } from '#shared/repositories/datasets';
import { idQuerySchema } from '#shared/schemas/dataset-fields';
import { type DeleteDatasetDeps, deleteDataset } from './delete-dataset.ts';

/** Purge messages sent at once: a folder of 10,000 knowledge bases is not 10,000 round trips in a row. */
const SEND_CONCURRENCY = 16;

const config = loadConfig(deleteDatasetEnvSchema);
const logger = createLogger('delete-dataset', config.LOG_LEVEL);
const metrics = createMetrics();
// DynamoDB takes many BatchWriteItem calls at once; eight in flight keeps a 10,000-record delete short.
const repo = new DynamoDatasetRepository(documentClient, config.DATASETS_TABLE, { writeConcurrency: 8 });
const queue = trainingQueueFor(config[ENV.kbTrainingQueueUrl], () => new SQSClient({}));
const deps: DeleteDatasetDeps = { repo, now: () => new Date(), purgeContent: purgeContentOf(queue, repo) };

/**
 * The knowledge bases' content goes after them, in the background: one `delete` message each on the training queue
 * (shared/kb/content-delete.ts, docs/knowledge-base-api.md "Deleting").
 */
function purgeContentOf(
  training: TrainingQueue,
  records: Pick<DynamoDatasetRepository, 'knownEmpty'>,
): DeleteDatasetDeps['purgeContent'] {
  const slots = new Slots(SEND_CONCURRENCY);
  return async (teamId, datasetIds) => {
    // A knowledge base still marked empty holds nothing: 100 records read in one call, and no message.
    const empty = await records.knownEmpty(teamId, datasetIds);
    const held = datasetIds.filter((id) => !empty.has(id));
    await Promise.all(
      held.map((datasetId) => slots.run(() => training.send({ kind: 'delete', teamId, datasetId }), undefined)),
    );
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
