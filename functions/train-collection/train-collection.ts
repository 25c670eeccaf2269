import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { type TrainingDeps, train } from '#shared/kb/training';
import { parseTrainingMessage } from '#shared/kb/training-queue';

/** What the batch logs through: fields only (ids, never a customer's text). */
export interface TrainingLogger {
  warn(message: string, ...fields: Record<string, unknown>[]): void;
  error(message: string, ...fields: Record<string, unknown>[]): void;
}

/**
 * Runs a batch of queued messages in order. In a FIFO batch a failure stops the rest of its batch (they are reported
 * failed too), so a collection's later work never runs before its earlier work.
 */
export async function trainBatch(
  event: SQSEvent,
  deps: TrainingDeps,
  logger: TrainingLogger,
): Promise<SQSBatchResponse> {
  const failures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    if (failures.length > 0) {
      failures.push({ itemIdentifier: record.messageId });
      continue;
    }
    const message = parseTrainingMessage(record.body);
    if (message === undefined) {
      logger.warn('train-collection: dropped a message that is not a training message', {
        messageId: record.messageId,
      });
      continue;
    }
    try {
      await train(message, deps);
    } catch (error) {
      logger.error('train-collection: training failed; the message will be retried', {
        messageId: record.messageId,
        collectionId: message.collectionId,
        error: error instanceof Error ? error.name : 'error',
      });
      failures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures: failures };
}
