import { describe, expect, it } from 'vitest';
import { newObjectId } from '#shared/ids';
import { queueRetraining, type RetrainSettingsBody, retrainedSettings } from '#shared/kb/retraining';
import type { TrainingMessage } from '#shared/kb/training-queue';
import { refusal, storeKnowledgeBase, storeTextCollection, useKbContentTables } from '#test/support/kb-content';

const world = useKbContentTables();
const TEAM = 'team-retrain';
const SETTINGS = { trainingType: 'chunk', chunkSize: 500 } as const;

/** A text collection (stored `ready` at generation `generation`) and the queue its training again goes to. */
async function trained(options: { fileId?: string; status?: 'ready' | 'queued' | 'training' } = {}) {
  const dataset = await storeKnowledgeBase(world, TEAM);
  const stored = await storeTextCollection(world, dataset, { fileId: options.fileId ?? newObjectId() });
  await world.content.updateCollection(TEAM, dataset.id, stored.id, {
    generation: 1,
    status: options.status ?? 'ready',
  });
  const collection = await world.content.getCollection(TEAM, dataset.id, stored.id);
  const sent: TrainingMessage[] = [];
  const deps = {
    content: world.content,
    queue: { send: async (m: TrainingMessage) => void sent.push(m) },
    now: () => new Date(),
  };
  return { collection: collection as NonNullable<typeof collection>, sent, deps };
}

describe('queueRetraining', () => {
  it('marks the collection queued with its new settings and one queued unit, then queues its next generation', async () => {
    const { collection, sent, deps } = await trained();

    await queueRetraining(collection, SETTINGS, deps);

    expect(await world.content.getCollection(TEAM, collection.datasetId, collection.id)).toMatchObject({
      status: 'queued',
      settings: SETTINGS,
      trainingAmount: 1,
      generation: 1,
    });
    expect(sent).toEqual([
      { kind: 'collection', teamId: TEAM, datasetId: collection.datasetId, collectionId: collection.id, generation: 2 },
    ]);
  });

  it('answers 429 while the collection is queued or training, and for a second call on the same state, queueing once', async () => {
    for (const status of ['queued', 'training'] as const) {
      const busy = await trained({ status });
      expect(await refusal(queueRetraining(busy.collection, SETTINGS, busy.deps))).toEqual({
        httpStatus: 429,
        code: 429,
      });
      expect(busy.sent).toEqual([]);
    }
    const { collection, sent, deps } = await trained();
    const calls = await Promise.allSettled([1, 2].map(() => queueRetraining(collection, SETTINGS, deps)));

    expect(calls.map((c) => c.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(sent).toHaveLength(1);
  });

  it('answers 507000 for a collection with no source (data entered by hand) and writes nothing', async () => {
    const { collection, sent, deps } = await trained();
    const manual = { ...collection, fileId: undefined };

    expect(await refusal(queueRetraining(manual, SETTINGS, deps))).toEqual({ httpStatus: 400, code: 507000 });
    expect(sent).toEqual([]);
    expect(await world.content.getCollection(TEAM, collection.datasetId, collection.id)).toMatchObject({
      status: 'ready',
    });
  });
});

describe('retrainedSettings', () => {
  const old = { trainingType: 'qa', chunkSize: 800, chunkSplitter: '##', qaPrompt: 'Ask about prices' } as const;
  const body: RetrainSettingsBody = {};

  it('keeps every setting the body does not send', () => {
    expect(retrainedSettings(old, body)).toEqual(old);
  });

  it('takes what the body sends, null or an empty text clearing an optional setting', () => {
    expect(
      retrainedSettings(old, {
        ...body,
        trainingType: 'chunk',
        chunkSize: 300,
        chunkSplitter: null,
        qaPrompt: '',
        indexSize: 256,
      }),
    ).toEqual({ trainingType: 'chunk', chunkSize: 300, indexSize: 256 });
    expect(retrainedSettings(undefined, { ...body, trainingType: 'auto' })).toEqual({
      trainingType: 'chunk',
      chunkSize: 1000,
    });
  });

  it('keeps a backup a backup: its rows are its chunks whatever the body asks', () => {
    const backup = { trainingType: 'backup', chunkSize: 1000 } as const;

    expect(retrainedSettings(backup, { ...body, trainingType: 'qa' })).toMatchObject({ trainingType: 'backup' });
  });

  it('keeps a template import a template import', () => {
    const template = { trainingType: 'template', chunkSize: 1000 } as const;

    expect(retrainedSettings(template, { ...body, trainingType: 'chunk' })).toMatchObject({ trainingType: 'template' });
  });
});
