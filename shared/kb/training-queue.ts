import { randomUUID } from 'node:crypto';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';

/*
 * The training queue (docs/knowledge-base-api.md, "Training"): the content calls answer at once and queue the work
 * here. Deployed it is an SQS FIFO queue consumed by `train-collection`; under `npm start` an in-process queue
 * (infra/local/kb-queue.ts) runs the same core. Messages carry ids only, never a customer's text.
 */

/** One unit of training work. */
export type TrainingMessage =
  /** (Re-)train a collection from its source into generation `generation`. */
  | {
      readonly kind: 'collection';
      readonly teamId: string;
      readonly datasetId: string;
      readonly collectionId: string;
      readonly generation: number;
    }
  /** Embed and index chunks pushed or edited one by one (pushData, data/update). */
  | {
      readonly kind: 'data';
      readonly teamId: string;
      readonly datasetId: string;
      readonly collectionId: string;
      readonly dataIds: readonly string[];
    }
  /**
   * Delete content in the background (shared/kb/content-delete.ts): the named collections (marked `deleting`) with
   * everything below them, or, without `collectionIds`, all a deleted knowledge base held. Sent again by itself, as it
   * is, before its invocation's time runs out: whatever went is gone, so the next one goes on from there.
   */
  | {
      readonly kind: 'delete';
      readonly teamId: string;
      readonly datasetId: string;
      readonly collectionIds?: readonly string[];
    };

/**
 * A message's FIFO group: its collection's (a delete of collections: its first one's, so it runs after that
 * collection's queued training), a knowledge base's purge its knowledge base's.
 */
export function messageGroupOf(message: TrainingMessage): string {
  if (message.kind !== 'delete') return message.collectionId;
  return message.collectionIds?.[0] ?? message.datasetId;
}

/**
 * Receives of a message before it moves to the dead-letter queue (the deployed queue's redrive policy, infra/kb.ts;
 * `npm start`'s queue tries as often). The last failed receive of a collection's training marks the collection failed.
 */
export const TRAINING_MAX_RECEIVES = 4;

export interface TrainingQueue {
  send(message: TrainingMessage): Promise<void>;
}

/**
 * The deployed queue: FIFO, one message group per collection, so a collection's work runs in the order it was asked
 * for (a push after a create, an edit after a push) while different collections, even of one knowledge base, train in
 * parallel (a per-dataset group would make a knowledge base of a hundred files train one file at a time).
 */
export function sqsTrainingQueue(client: SQSClient, queueUrl: string): TrainingQueue {
  return {
    async send(message) {
      await client.send(
        new SendMessageCommand({
          QueueUrl: queueUrl,
          MessageBody: JSON.stringify(message),
          MessageGroupId: messageGroupOf(message),
          MessageDeduplicationId: randomUUID(),
        }),
      );
    },
  };
}

let localQueue: TrainingQueue | undefined;

/** `npm start` installs its in-process queue here before the first request (infra/local/kb-queue.ts). */
export function installLocalTrainingQueue(queue: TrainingQueue | undefined): void {
  localQueue = queue;
}

/** The queue a function sends to: SQS when KB_TRAINING_QUEUE_URL is set, else the local run's in-process queue. */
export function trainingQueueFor(queueUrl: string | undefined, sqs: () => SQSClient): TrainingQueue {
  if (queueUrl !== undefined) return sqsTrainingQueue(sqs(), queueUrl);
  return {
    async send(message) {
      if (localQueue === undefined) throw new Error('no training queue: set KB_TRAINING_QUEUE_URL');
      await localQueue.send(message);
    },
  };
}

/** Parses a queued message body; undefined when it is not one of ours (it is dropped, never retried). */
export function parseTrainingMessage(body: string): TrainingMessage | undefined {
  try {
    const value = JSON.parse(body) as Partial<Record<string, unknown>>;
    const strings = (v: unknown) => Array.isArray(v) && v.every((d) => typeof d === 'string');
    if (!['teamId', 'datasetId'].every((k) => typeof value[k] === 'string')) return undefined;
    const ids = value.collectionIds;
    if (value.kind === 'delete' && (ids === undefined || (strings(ids) && (ids as unknown[]).length > 0))) {
      return value as TrainingMessage;
    }
    if (typeof value.collectionId !== 'string') return undefined;
    if (value.kind === 'collection' && typeof value.generation === 'number') return value as TrainingMessage;
    if (value.kind === 'data' && strings(value.dataIds)) return value as TrainingMessage;
    return undefined;
  } catch {
    return undefined;
  }
}
