import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { type ContentDeleteDeps, runDelete } from '#shared/kb/content-delete';
import { type Delivery, markTrainingFailed, type TrainingDeps, train } from '#shared/kb/training';
import {
  parseTrainingMessage,
  TRAINING_MAX_RECEIVES,
  type TrainingMessage,
  type TrainingQueue,
} from '#shared/kb/training-queue';

/**
 * The time a background delete keeps back: it starts no slice with less left, so the slice under way (1,000 chunks
 * take a few seconds) and the message sent again fit well before the function's timeout (infra/kb.ts).
 */
export const DELETE_RESERVE_MS = 60_000;

/** The training core's collaborators, and the background delete's (shared/kb/content-delete.ts). */
export interface BatchDeps extends TrainingDeps {
  readonly deletes: ContentDeleteDeps;
  /** Where a delete stopped by its time sends itself again: the training queue. */
  readonly queue: TrainingQueue;
}

/** What the batch logs through: fields only (ids, never a customer's text). */
export interface TrainingLogger {
  warn(message: string, ...fields: Record<string, unknown>[]): void;
  error(message: string, ...fields: Record<string, unknown>[]): void;
}

/**
 * Runs a batch of queued messages in order. In a FIFO batch a failure stops the rest of its batch (they are reported
 * failed too), so a collection's later work never runs before its earlier work. `remainingMs` is the invocation's
 * time left (the Lambda context's); without it a delete runs to its end.
 */
export async function trainBatch(
  event: SQSEvent,
  deps: BatchDeps,
  logger: TrainingLogger,
  remainingMs?: () => number,
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
    const receives = Number(record.attributes?.ApproximateReceiveCount);
    try {
      await run(message, deps, remainingMs, Number.isInteger(receives) && receives > 0 ? { receives } : undefined);
    } catch (error) {
      const cause = error instanceof Error ? error.name : 'error';
      const last = receives >= TRAINING_MAX_RECEIVES;
      logger.error(
        last
          ? 'train-collection: training failed on its last attempt; the message goes to the dead-letter queue'
          : 'train-collection: training failed; the message will be retried',
        { messageId: record.messageId, kind: message.kind, datasetId: message.datasetId, error: cause },
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

async function run(
  message: TrainingMessage,
  deps: BatchDeps,
  remainingMs: (() => number) | undefined,
  delivery: Delivery | undefined,
): Promise<void> {
  if (message.kind !== 'delete') return train(message, deps, delivery);
  const outOfTime = () => remainingMs !== undefined && remainingMs() < DELETE_RESERVE_MS;
  // Sent before this message is acknowledged: a failed send fails the message, which SQS then delivers again.
  if (!(await runDelete(message, deps.deletes, outOfTime))) await deps.queue.send(message);
}
