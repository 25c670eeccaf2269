import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { localTrainingQueue } from '#infra/local/kb-queue';
import type { TrainingMessage } from '#shared/kb/training-queue';

const message = (collectionId: string, generation = 1): TrainingMessage => ({
  kind: 'collection',
  teamId: 't',
  datasetId: 'd',
  collectionId,
  generation,
});

describe("npm start's training queue", () => {
  it("runs one collection's messages in order, one at a time", async () => {
    const seen: string[] = [];
    let running = 0;
    const queue = localTrainingQueue(async (event: SQSEvent) => {
      running++;
      expect(running).toBe(1);
      const body = JSON.parse(event.Records[0]?.body ?? '{}') as { collectionId: string; generation: number };
      await new Promise((r) => setTimeout(r, 5));
      seen.push(`${body.collectionId}:${body.generation}`);
      running--;
      return { batchItemFailures: [] };
    });

    await queue.send(message('c1', 1));
    await queue.send(message('c1', 2));
    await queue.send(message('c1', 3));
    await queue.idle();

    expect(seen).toEqual(['c1:1', 'c1:2', 'c1:3']);
  });

  it('tries a failed message again with growing pauses, then drops it as a dead letter', async () => {
    let attempts = 0;
    const dead: TrainingMessage[] = [];
    const queue = localTrainingQueue(
      async (event) => {
        attempts++;
        return { batchItemFailures: [{ itemIdentifier: event.Records[0]?.messageId ?? '' }] };
      },
      { maxAttempts: 3, retryBaseMs: 1, onDeadLetter: (m) => dead.push(m) },
    );

    await queue.send(message('c2'));
    await queue.idle();

    expect(attempts).toBe(3);
    expect(dead).toEqual([message('c2')]);
  });

  it('counts a thrown handler as a failure and succeeds on the next attempt', async () => {
    let attempts = 0;
    const dead: TrainingMessage[] = [];
    const queue = localTrainingQueue(
      async () => {
        attempts++;
        if (attempts === 1) throw new Error('DynamoDB unavailable');
        return { batchItemFailures: [] };
      },
      { retryBaseMs: 1, onDeadLetter: (m) => dead.push(m) },
    );

    await queue.send(message('c3'));
    await queue.idle();

    expect([attempts, dead]).toEqual([2, []]);
  });
});
