import { SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { documentClient } from '#shared/clients/dynamodb';
import { ENV, kbTrainingEnvSchema, loadConfig } from '#shared/config';
import { newObjectId } from '#shared/ids';
import { splitTextAsFastGpt } from '#shared/kb/chunking';
import { relayChat, relayEmbedder } from '#shared/kb/relay-models';
import { linkEnvSchema, sourceStoreEnvSchema } from '#shared/kb/sources/config';
import { sourceReaderFor } from '#shared/kb/sources/store-wiring';
import { TRAINING_WRITE_CONCURRENCY } from '#shared/kb/training';
import { trainingQueueFor } from '#shared/kb/training-queue';
import { chunkIndexWriterFor, sourceFileStoreFor } from '#shared/kb/wiring';
import { createLogger } from '#shared/logger';
import { relayOnDynamo } from '#shared/relay/runtime';
import { KbContentRepository } from '#shared/repositories/kb-content';
import { TrainingSubjects } from '#shared/repositories/training-subjects';
import * as z from '#shared/zod';
import { type BatchDeps, trainBatch } from './train-collection.ts';

const config = loadConfig(kbTrainingEnvSchema);
const sourcesConfig = loadConfig(z.extend(sourceStoreEnvSchema, linkEnvSchema.shape));
const logger = createLogger('train-collection', config.LOG_LEVEL);
const relay = relayOnDynamo(documentClient, config, logger);
const group = config[ENV.kbRelayGroup];
const content = new KbContentRepository(documentClient, config[ENV.kbContentTable], {
  writeConcurrency: TRAINING_WRITE_CONCURRENCY,
});
const files = sourceFileStoreFor(config);
const index = chunkIndexWriterFor(config);
const deps: BatchDeps = {
  content,
  subjects: new TrainingSubjects(documentClient, {
    kbContent: config[ENV.kbContentTable],
    datasets: config[ENV.datasetsTable],
  }),
  files,
  // Link and file collections (shared/kb/sources): links under LINK_ALLOWED_HOSTS' rules, files from the team's prefix.
  sources: sourceReaderFor(sourcesConfig),
  split: splitTextAsFastGpt,
  embedder: relayEmbedder(relay, group),
  chat: relayChat(relay, group),
  index,
  newId: () => newObjectId(),
  now: () => new Date(),
  defaults: {
    vectorModel: config[ENV.modelCatalog].vector.default,
    agentModel: config[ENV.modelCatalog].agent.default,
  },
  deletes: { content, index, files },
  // Its own queue: a background delete sends itself again (KB_TRAINING_QUEUE_URL, or `npm start`'s in-process queue).
  queue: trainingQueueFor(config[ENV.kbTrainingQueueUrl], () => new SQSClient({})),
};

/**
 * The training queue's consumer (SQS, FIFO, batches of one group at a time): each message runs through the training
 * core or the background delete; a message that fails is reported back (partial batch response) and retried by SQS
 * after its visibility timeout, then moved to the dead-letter queue.
 */
export const handler = (event: SQSEvent, context?: Context): Promise<SQSBatchResponse> =>
  trainBatch(event, deps, logger, context ? () => context.getRemainingTimeInMillis() : undefined);
