import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { type BatchDeps, trainBatch } from '#functions/train-collection/train-collection';
import { newObjectId } from '#shared/ids';
import { TRAINING_MAX_RECEIVES, type TrainingMessage } from '#shared/kb/training-queue';
import type { KbContentRepository } from '#shared/repositories/kb-content';
import {
  chunkOf,
  memoryFileStore,
  recordingIndexWriter,
  storeKnowledgeBase,
  storeTextCollection,
  trainingDepsOn,
  useKbContentTables,
} from '#test/support/kb-content';

const record = (messageId: string, body: unknown) => ({ messageId, body: JSON.stringify(body) });
const message = (collectionId: string) => ({
  kind: 'collection',
  teamId: 't',
  datasetId: 'd',
  collectionId,
  generation: 1,
});

/** Training deps whose first read fails for the collections named (a storage error), and succeeds otherwise. */
function deps(failing: readonly string[], reads: string[]): BatchDeps {
  return {
    subjects: {
      async read(_t: string, _d: string, id: string) {
        reads.push(id);
        if (failing.includes(id)) throw new Error('ProvisionedThroughputExceededException');
        return {};
      },
    },
  } as unknown as BatchDeps;
}

/** An SQS event of one message on its `receives`th receive (SQS's ApproximateReceiveCount). */
const received = (message: TrainingMessage | undefined, receives: number) =>
  ({
    Records: [
      {
        messageId: `m${receives}`,
        body: JSON.stringify(message),
        attributes: { ApproximateReceiveCount: `${receives}` },
      },
    ],
  }) as unknown as SQSEvent;

const logs: string[] = [];
const logger = { warn: (m: string) => void logs.push(m), error: (m: string) => void logs.push(m) };

describe('the training function (SQS consumer)', () => {
  it('reports a failed message, and the later messages of its batch, for SQS to retry in order', async () => {
    const reads: string[] = [];
    const event = {
      Records: [record('m1', message('ok')), record('m2', message('bad')), record('m3', message('later'))],
    } as unknown as SQSEvent;

    const out = await trainBatch(event, deps(['bad'], reads), logger);

    expect(out.batchItemFailures).toEqual([{ itemIdentifier: 'm2' }, { itemIdentifier: 'm3' }]);
    expect(reads).toEqual(['ok', 'bad']);
  });

  it('drops a message that is not a training message instead of retrying it forever', async () => {
    const event = {
      Records: [record('m1', { kind: 'other' }), { messageId: 'm2', body: 'not json' }],
    } as unknown as SQSEvent;

    const out = await trainBatch(event, deps([], []), logger);

    expect(out.batchItemFailures).toEqual([]);
    expect(logs.some((l) => l.includes('dropped'))).toBe(true);
  });
});

const world = useKbContentTables();
const TEAM = 'team-last-attempt';

describe('the last failed attempt of a collection’s training', () => {
  /** A text collection whose chunk writes fail (a storage error the core does not expect), queued as create/text does. */
  async function failingTraining(failing: 'chunk writes' | 'postings' = 'chunk writes') {
    const dataset = await storeKnowledgeBase(world, TEAM);
    const files = memoryFileStore();
    const fileId = newObjectId();
    await files.put({
      teamId: TEAM,
      fileId,
      name: 'notes',
      contentType: 'text/plain',
      bytes: Buffer.from('Some text.'),
    });
    const sent: TrainingMessage[] = [];
    const collection = await storeTextCollection(world, dataset, { fileId, send: async (m) => void sent.push(m) });
    const tooLarge = Object.assign(new Error('Item size has exceeded the maximum allowed size'), {
      name: 'ValidationException',
    });
    const content = Object.assign(Object.create(world.content) as KbContentRepository, {
      putChunks: async () => {
        throw tooLarge;
      },
    });
    // Postings failing after the chunks are stored (the 400 KB block of a large training): the chunks stay behind.
    const index = recordingIndexWriter();
    const failingIndex = {
      ...index,
      addFullText: async (...args: Parameters<typeof index.addFullText>) => {
        await args[3]?.after;
        throw tooLarge;
      },
    };
    const trainingDeps = trainingDepsOn(
      world,
      failing === 'chunk writes' ? { files, content } : { files, index: failingIndex },
    );
    const attempt = (receives: number) => trainBatch(received(sent[0], receives), trainingDeps, logger);
    const detail = () => world.content.getCollection(TEAM, dataset.id, collection.id);
    const chunks = () => world.content.chunksOf(TEAM, dataset.id, collection.id);
    return { attempt, detail, chunks, collection };
  }

  it('leaves the collection training while attempts remain, and marks it failed, with why, on the last', async () => {
    const { attempt, detail } = await failingTraining();

    for (let receives = 1; receives < TRAINING_MAX_RECEIVES; receives++) {
      const out = await attempt(receives);
      expect(out.batchItemFailures).toHaveLength(1);
      // A first receive of one embeddings request's chunks says nothing before its flip; a retry says `training`.
      expect((await detail())?.status).toBe(receives === 1 ? 'queued' : 'training');
    }
    // Still reported failed: the message goes on to the dead-letter queue and its alarm.
    expect((await attempt(TRAINING_MAX_RECEIVES)).batchItemFailures).toHaveLength(1);

    const failed = await detail();
    expect(failed).toMatchObject({ status: 'error', trainingAmount: 0 });
    expect(failed?.error).toBe(
      'training failed on every attempt (ValidationException); train the collection again once the cause is fixed',
    );
  });

  it("removes the failed attempts' chunks when it marks the collection failed, and keeps chunks pushed by hand", async () => {
    const { attempt, chunks, collection } = await failingTraining('postings');
    for (let receives = 1; receives < TRAINING_MAX_RECEIVES; receives++) await attempt(receives);
    // The attempts stored their chunks (of the next generation, unreadable) before their postings failed.
    expect((await chunks()).map((c) => [c.q, c.generation])).toEqual([['Some text.', 1]]);
    await world.content.putChunks([chunkOf(collection, 5, 'pushed by hand', '', { pushed: true, generation: 1 })]);

    await attempt(TRAINING_MAX_RECEIVES);

    // A training again goes into that same generation and would have shown them beside its own.
    expect((await chunks()).map((c) => c.q)).toEqual(['pushed by hand']);
  });
});

describe('a first receive of a small training', () => {
  const TEAM_SMALL = 'team-first-receive';

  /** A text collection of `text`, queued as create/text queues it; `attempt(receives, deps?)` runs its message. */
  async function queued(text: string) {
    const dataset = await storeKnowledgeBase(world, TEAM_SMALL);
    const files = memoryFileStore();
    const fileId = newObjectId();
    await files.put({ teamId: TEAM_SMALL, fileId, name: 'n', contentType: 'text/plain', bytes: Buffer.from(text) });
    const sent: TrainingMessage[] = [];
    const collection = await storeTextCollection(world, dataset, { fileId, send: async (m) => void sent.push(m) });
    const updates: string[] = [];
    const content = Object.assign(Object.create(world.content) as KbContentRepository, {
      updateCollection: (...args: Parameters<KbContentRepository['updateCollection']>) => {
        updates.push(String(args[3].status));
        return world.content.updateCollection(...args);
      },
    });
    const attempt = (receives: number, more: Partial<BatchDeps> = {}) =>
      trainBatch(received(sent[0], receives), { ...trainingDepsOn(world, { files, content }), ...more }, logger);
    const detail = () => world.content.getCollection(TEAM_SMALL, dataset.id, collection.id);
    const chunks = () => world.content.chunksOf(TEAM_SMALL, dataset.id, collection.id);
    return { attempt, detail, chunks, updates };
  }

  it('writes its collection once, at the flip, and counts as a claimed training does', async () => {
    const { attempt, detail, chunks, updates } = await queued('One paragraph.\n\nAnother paragraph.');
    expect((await attempt(1)).batchItemFailures).toEqual([]);
    expect(updates).toEqual(['ready']);
    const trained = await detail();
    expect(trained).toMatchObject({ status: 'ready', generation: 1, trainingAmount: 0, failedChunks: 0 });
    expect(trained?.dataAmount).toBe((await chunks()).length);
  });

  it('claims when it is a retry, and removes what the unclaimed first attempt left behind', async () => {
    const { attempt, detail, chunks, updates } = await queued('Some text to train.');
    // The first receive stores its chunks, then its postings fail: the chunks stay, unreadable, of generation 1.
    const index = recordingIndexWriter();
    const failing = {
      ...index,
      addFullText: async (...args: Parameters<typeof index.addFullText>) => {
        await args[3]?.after;
        throw new Error('ProvisionedThroughputExceededException');
      },
    };
    expect((await attempt(1, { index: failing })).batchItemFailures).toHaveLength(1);
    expect((await chunks()).map((c) => c.generation)).toEqual([1]);
    expect((await detail())?.status).toBe('queued');

    expect((await attempt(2)).batchItemFailures).toEqual([]);
    expect(updates).toEqual(['training', 'ready']);
    const left = await chunks();
    expect(left).toHaveLength(1);
    expect(await detail()).toMatchObject({ status: 'ready', dataAmount: 1, trainingAmount: 0 });
  });

  it('claims a training of more than one embeddings request (its stages are worth showing)', async () => {
    const paragraphs = Array.from({ length: 40 }, (_, i) => `Paragraph ${i}: ${'word '.repeat(250)}`).join('\n\n');
    const { attempt, detail, chunks, updates } = await queued(paragraphs);
    expect((await attempt(1)).batchItemFailures).toEqual([]);
    expect((await chunks()).length).toBeGreaterThan(32);
    expect(updates).toEqual(['training', 'ready']);
    expect(await detail()).toMatchObject({ status: 'ready', trainingAmount: 0 });
  });

  it('takes a failed training’s error away at the flip', async () => {
    const { attempt, detail } = await queued('Text that trains this time.');
    const before = await detail();
    await world.content.updateCollection(
      TEAM_SMALL,
      before?.datasetId as string,
      before?.id as string,
      { status: 'queued', error: 'the embeddings call failed' },
      {},
    );
    expect((await attempt(1)).batchItemFailures).toEqual([]);
    const trained = await detail();
    expect(trained?.status).toBe('ready');
    expect(trained?.error).toBeUndefined();
  });
});
