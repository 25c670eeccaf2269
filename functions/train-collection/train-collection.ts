import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { markTrainingFailed, type TrainingDeps, train } from '#shared/kb/training';
import { parseTrainingMessage, TRAINING_MAX_RECEIVES } from '#shared/kb/training-queue';

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
      const cause = error instanceof Error ? error.name : 'error';
      const last = Number(record.attributes?.ApproximateReceiveCount ?? 0) >= TRAINING_MAX_RECEIVES;
      logger.error(
        last
          ? 'train-collection: training failed on its last attempt; the message goes to the dead-letter queue'
          : 'train-collection: training failed; the message will be retried',
        { messageId: record.messageId, collectionId: message.collectionId, error: cause },
      );
      // Still reported failed, so it reaches the dead-letter queue and its alarm.
      failures.push({ itemIdentifier: record.messageId });
      if (last && message.kind === 'collection') {
        await markTrainingFailed(message, deps, cause).catch((markError: unknown) =>
          logger.error('train-collection: could not mark the collection failed', {
            collectionId: message.collectionId,
            error: markError instanceof Error ? markError.name : 'error',
          }),
        );
      }
    }
  }
  return { batchItemFailures: failures };
}
