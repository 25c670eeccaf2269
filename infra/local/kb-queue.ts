import { randomUUID } from 'node:crypto';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import {
  messageGroupOf,
  TRAINING_MAX_RECEIVES,
  type TrainingMessage,
  type TrainingQueue,
} from '#shared/kb/training-queue';

/*
 * `npm start`'s training queue (docs/knowledge-base-api.md, "Training"): the deployed SQS FIFO queue in process. The
 * same `train-collection` handler runs each message, one at a time per collection (the FIFO group), different
 * collections side by side; a failed message is tried again after a growing pause, then dropped with a log line, as
 * the deployed queue moves it to its dead-letter queue.
 */

export type SqsHandler = (event: SQSEvent) => Promise<SQSBatchResponse | undefined>;

export interface LocalTrainingQueue extends TrainingQueue {
  /** Resolves once every message sent so far has been handled (tests, shutdown). */
  idle(): Promise<void>;
}

export interface LocalTrainingQueueOptions {
  /** Attempts per message, the first included (the deployed queue's maxReceiveCount). */
  readonly maxAttempts?: number;
  /** First pause before a retry; doubles per attempt. */
  readonly retryBaseMs?: number;
  /** Told when a message is dropped after its last attempt (never its content beyond ids). */
  readonly onDeadLetter?: (message: TrainingMessage) => void;
}

export function localTrainingQueue(handler: SqsHandler, options: LocalTrainingQueueOptions = {}): LocalTrainingQueue {
  const maxAttempts = options.maxAttempts ?? TRAINING_MAX_RECEIVES;
  const retryBaseMs = options.retryBaseMs ?? 1_000;
  // The tail of each collection's chain of work (its FIFO group).
  const groups = new Map<string, Promise<void>>();
  const pending = new Set<Promise<void>>();

  const runOnce = async (message: TrainingMessage, attempt: number): Promise<boolean> => {
    const messageId = randomUUID();
    // As SQS: the message's receives so far, this one included.
    const attributes = { MessageGroupId: messageGroupOf(message), ApproximateReceiveCount: String(attempt) };
    const event = { Records: [{ messageId, body: JSON.stringify(message), attributes }] } as unknown as SQSEvent;
    try {
      const out = await handler(event);
      return (out?.batchItemFailures ?? []).length === 0;
    } catch {
      return false;
    }
  };

  const run = async (message: TrainingMessage): Promise<void> => {
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      if (await runOnce(message, attempt)) return;
      if (attempt < maxAttempts) await new Promise((r) => setTimeout(r, retryBaseMs * 2 ** (attempt - 1)).unref());
    }
    options.onDeadLetter?.(message);
  };

  return {
    async send(message) {
      const group = messageGroupOf(message);
      const previous = groups.get(group) ?? Promise.resolve();
      const next = previous.then(() => run(message));
      groups.set(group, next);
      pending.add(next);
      void next.finally(() => {
        pending.delete(next);
        if (groups.get(group) === next) groups.delete(group);
      });
    },
    async idle() {
      while (pending.size > 0) await Promise.allSettled([...pending]);
    },
  };
}
