import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { documentClient } from '#shared/clients/dynamodb';
import { ENV, kbTrainingEnvSchema, loadConfig } from '#shared/config';
import { newObjectId } from '#shared/ids';
import { splitTextAsFastGpt } from '#shared/kb/chunking';
import { relayChat, relayEmbedder } from '#shared/kb/relay-models';
import { linkEnvSchema, sourceStoreEnvSchema } from '#shared/kb/sources/config';
import { sourceReaderFor } from '#shared/kb/sources/store-wiring';
import { TRAINING_WRITE_CONCURRENCY, type TrainingDeps } from '#shared/kb/training';
import { chunkIndexWriterFor, sourceFileStoreFor } from '#shared/kb/wiring';
import { createLogger } from '#shared/logger';
import { relayOnDynamo } from '#shared/relay/runtime';
import { KbContentRepository } from '#shared/repositories/kb-content';
import { TrainingSubjects } from '#shared/repositories/training-subjects';
import * as z from '#shared/zod';
import { trainBatch } from './train-collection.ts';

const config = loadConfig(kbTrainingEnvSchema);
const sourcesConfig = loadConfig(z.extend(sourceStoreEnvSchema, linkEnvSchema.shape));
const logger = createLogger('train-collection', config.LOG_LEVEL);
const relay = relayOnDynamo(documentClient, config, logger);
const group = config[ENV.kbRelayGroup];
const deps: TrainingDeps = {
  content: new KbContentRepository(documentClient, config[ENV.kbContentTable], {
    writeConcurrency: TRAINING_WRITE_CONCURRENCY,
  }),
  subjects: new TrainingSubjects(documentClient, {
    kbContent: config[ENV.kbContentTable],
    datasets: config[ENV.datasetsTable],
  }),
  files: sourceFileStoreFor(config),
  // Link and file collections (shared/kb/sources): links under LINK_ALLOWED_HOSTS' rules, files from the team's prefix.
  sources: sourceReaderFor(sourcesConfig),
  split: splitTextAsFastGpt,
  embedder: relayEmbedder(relay, group),
  chat: relayChat(relay, group),
  index: chunkIndexWriterFor(config),
  newId: () => newObjectId(),
  now: () => new Date(),
  defaults: {
    vectorModel: config[ENV.modelCatalog].vector.default,
    agentModel: config[ENV.modelCatalog].agent.default,
  },
};

/**
 * The training queue's consumer (SQS, FIFO, batches of one group at a time): each message runs through the training
 * core; a message that fails is reported back (partial batch response) and retried by SQS after its visibility
 * timeout, then moved to the dead-letter queue.
 */
export const handler = (event: SQSEvent): Promise<SQSBatchResponse> => trainBatch(event, deps, logger);
