import { describe, expect, it } from 'vitest';
import { newObjectId } from '#shared/ids';
import { storeText } from '#shared/kb/collections';
import { type ChunkRecord, chunkSortKey, EmbeddingUnavailableError } from '#shared/kb/contract';
import { readable } from '#shared/kb/data';
import { queueRetraining } from '#shared/kb/retraining';
import { type TrainingDeps, train } from '#shared/kb/training';
import type { TrainingMessage } from '#shared/kb/training-queue';
import type { StoredCollection } from '#shared/repositories/kb-content';
import {
  memoryFileStore,
  recordingIndexWriter,
  scriptedEmbedder,
  storeKnowledgeBase,
  storeTextCollection,
  trainingDepsOn,
  useKbContentTables,
} from '#test/support/kb-content';

const world = useKbContentTables();
const TEAM = 'team-train';
const TEXT = 'FastGPT is a knowledge base platform.\n\n知识库的向量检索很重要。\n\nChunks are embedded in batches.';

const newDataset = () => storeKnowledgeBase(world, TEAM);

/** A text collection as create/text stores it, and the message it queues. */
async function textCollection(text = TEXT, trainingType: 'chunk' | 'qa' = 'chunk') {
  const dataset = await newDataset();
  const files = memoryFileStore();
  const sent: TrainingMessage[] = [];
  const fileId = newObjectId();
  await storeText(files, TEAM, 'notes', text, fileId);
  const collection = await storeTextCollection(world, dataset, {
    trainingType,
    fileId,
    send: async (m) => void sent.push(m),
  });
  return { dataset, files, collection, message: sent[0] as TrainingMessage };
}

const deps = (overrides: Partial<TrainingDeps> & Pick<TrainingDeps, 'files'>) => trainingDepsOn(world, overrides);

/** The content repository's calls the training core makes, bound to the test tables. */
function pickContent(): TrainingDeps['content'] {
  const c = world.content;
  return {
    updateCollection: c.updateCollection.bind(c),
    getCollection: c.getCollection.bind(c),
    chunksOf: c.chunksOf.bind(c),
    putChunks: c.putChunks.bind(c),
    deleteKeys: c.deleteKeys.bind(c),
    addToCounts: c.addToCounts.bind(c),
  };
}

/** The content calls, counting the training's chunk queries. */
function countingChunkQueries() {
  const queried: number[] = [];
  const content: TrainingDeps['content'] = {
    ...pickContent(),
    chunksOf: async (t, d, c) => {
      queried.push(1);
      return world.content.chunksOf(t, d, c);
    },
  };
  return { content, queried };
}

/** A scripted embedder that notes each call in `order` and settles `answered` once it has answered the first. */
function answeringEmbedder(order: string[]) {
  const embedder = scriptedEmbedder();
  let answer = () => {};
  const answered = new Promise<void>((resolve) => {
    answer = resolve;
  });
  return {
    answered,
    embedder: {
      async embed(model: string, texts: readonly string[]) {
        order.push('embedding');
        const vectors = await embedder.embed(model, texts);
        answer();
        return vectors;
      },
    },
  };
}

describe('the training core', () => {
  it('trains a text collection into ready chunks of the next generation, embedded and indexed', async () => {
    const { files, collection, message } = await textCollection();
    const index = recordingIndexWriter();

    await train(message, deps({ files, index }));

    const after = await world.content.getCollection(TEAM, collection.datasetId, collection.id);
    expect(after).toMatchObject({ status: 'ready', generation: 1, dataAmount: 3, trainingAmount: 0 });
    expect(after?.error).toBeUndefined();
    const chunks = await world.content.chunksOf(TEAM, collection.datasetId, collection.id);
    expect(chunks.map((c) => c.q)).toEqual([
      'FastGPT is a knowledge base platform.',
      '知识库的向量检索很重要。',
      'Chunks are embedded in batches.',
    ]);
    expect(chunks.every((c) => c.ready && c.generation === 1 && !c.vectorMissing)).toBe(true);
    expect(index.vectors.size).toBe(3);
    expect(index.fullText.size).toBe(3);
  });

  it('writes each chunk of a collection once, ready in a generation nobody reads until the flip', async () => {
    const { files, collection, message } = await textCollection();
    const written: { ready: boolean; generation: number; id: string }[][] = [];
    const readableWhenWritten: boolean[] = [];
    const content: TrainingDeps['content'] = {
      updateCollection: world.content.updateCollection.bind(world.content),
      getCollection: world.content.getCollection.bind(world.content),
      chunksOf: world.content.chunksOf.bind(world.content),
      deleteKeys: world.content.deleteKeys.bind(world.content),
      addToCounts: world.content.addToCounts.bind(world.content),
      putChunks: async (chunks) => {
        written.push(chunks.map((c) => ({ ready: c.ready, generation: c.generation, id: c.id })));
        const current = await world.content.getCollection(TEAM, collection.datasetId, collection.id);
        readableWhenWritten.push(...chunks.map((c) => readable(c, current!)));
        await world.content.putChunks(chunks);
      },
    };
    const index = recordingIndexWriter();
    const fresh: (boolean | undefined)[] = [];

    await train(
      message,
      deps({
        files,
        content,
        index: {
          ...index,
          addFullText: async (t, d, docs, options) => {
            fresh.push(options?.fresh);
            await index.addFullText(t, d, docs, options);
          },
        },
      }),
    );

    expect(written).toHaveLength(1);
    expect(written[0]).toHaveLength(3);
    expect(written[0]!.every((c) => c.ready && c.generation === 1)).toBe(true);
    expect(readableWhenWritten).toEqual([false, false, false]);
    // New ids: the full text looks for no earlier postings of theirs.
    expect(fresh).toEqual([true]);
    expect([...index.fullText.values()].map((d) => d.chunkIndex)).toEqual([0, 1, 2]);
  });

  it('indexes the text while it embeds, and makes nothing readable when the postings cannot be written', async () => {
    const { files, collection, message } = await textCollection();
    const index = recordingIndexWriter();
    const order: string[] = [];
    const { embedder: embedding, answered } = answeringEmbedder(order);
    const failing = {
      ...index,
      addFullText: async () => {
        order.push('full text started');
        await answered;
        order.push('full text failed');
        throw new Error('postings write failed');
      },
    };

    await expect(train(message, deps({ files, index: failing, embedder: embedding }))).rejects.toThrow(
      'postings write failed',
    );

    expect(order).toEqual(['full text started', 'embedding', 'full text failed']);
    const chunks = await world.content.chunksOf(TEAM, collection.datasetId, collection.id);
    expect(chunks.length).toBe(3);
    const after = await world.content.getCollection(TEAM, collection.datasetId, collection.id);
    expect(after).toMatchObject({ generation: 0, status: 'training' });
    expect(chunks.some((c) => readable(c, after!))).toBe(false);
  });

  it('embeds and computes postings while the chunks are written, and stores neither before them', async () => {
    const { files, collection, message } = await textCollection();
    const index = recordingIndexWriter();
    const order: string[] = [];
    const { embedder: embedding, answered } = answeringEmbedder(order);
    const content: TrainingDeps['content'] = {
      ...pickContent(),
      putChunks: async (chunks) => {
        order.push('chunk write started');
        await answered;
        await world.content.putChunks(chunks);
        order.push('chunks stored');
      },
    };
    const recording: TrainingDeps['index'] = {
      ...index,
      addFullText: async (t, d, docs, options) => {
        order.push('full text asked');
        await index.addFullText(t, d, docs, options);
        order.push('postings stored');
      },
      putVectors: async (t, d, rows) => {
        order.push('vectors stored');
        await index.putVectors(t, d, rows);
      },
    };

    await train(message, deps({ files, content, index: recording, embedder: embedding }));

    expect(order.slice(0, 3)).toEqual(['chunk write started', 'full text asked', 'embedding']);
    expect(order.indexOf('chunks stored')).toBeLessThan(order.indexOf('postings stored'));
    expect(order.indexOf('chunks stored')).toBeLessThan(order.indexOf('vectors stored'));
    const after = await world.content.getCollection(TEAM, collection.datasetId, collection.id);
    expect(after).toMatchObject({ status: 'ready', generation: 1, dataAmount: 3 });
  });

  it('stores no postings or vectors when the chunks cannot be written, and fails the message for a retry', async () => {
    const { files, collection, message } = await textCollection();
    const index = recordingIndexWriter();
    // The write fails only once an embedding has come back: its vectors are ready to store and must not be.
    const { embedder, answered } = answeringEmbedder([]);
    const content: TrainingDeps['content'] = {
      ...pickContent(),
      putChunks: async () => {
        await answered;
        throw new Error('chunk write failed');
      },
    };

    await expect(train(message, deps({ files, content, index, embedder }))).rejects.toThrow('chunk write failed');

    expect(index.fullText.size).toBe(0);
    expect(index.vectors.size).toBe(0);
    const after = await world.content.getCollection(TEAM, collection.datasetId, collection.id);
    expect(after).toMatchObject({ generation: 0, status: 'training' });
  });

  it('replaces the old generation when a collection is trained again, and counts its chunks and pushed ones', async () => {
    const { files, collection, message } = await textCollection();
    const index = recordingIndexWriter();
    await train(message, deps({ files, index }));
    const first = await world.content.chunksOf(TEAM, collection.datasetId, collection.id);
    // A chunk pushed by hand after the first training (pushData): it stays, and stays counted.
    const pushedId = newObjectId();
    await world.content.putChunks([
      {
        ...(first[0] as ChunkRecord),
        id: pushedId,
        sk: chunkSortKey(collection.id, 99, pushedId),
        q: 'pushed by hand',
        pushed: true,
      },
    ]);
    await world.content.addToCounts(TEAM, collection.datasetId, collection.id, { dataAmount: 1 });
    const sent: TrainingMessage[] = [];
    const trained = await world.content.getCollection(TEAM, collection.datasetId, collection.id);
    await queueRetraining(
      trained as StoredCollection,
      { trainingType: 'chunk', chunkSize: 1000 },
      {
        content: world.content,
        queue: { send: async (m) => void sent.push(m) },
        now: () => new Date(),
      },
    );
    expect(await world.content.getCollection(TEAM, collection.datasetId, collection.id)).toMatchObject({
      status: 'queued',
      trainingAmount: 1,
      dataAmount: 4,
    });

    await train(sent[0] as TrainingMessage, deps({ files, index }));

    const second = await world.content.chunksOf(TEAM, collection.datasetId, collection.id);
    const trainedAgain = second.filter((c) => !c.pushed);
    expect(sent).toEqual([{ ...message, generation: 2 }]);
    expect(trainedAgain).toHaveLength(3);
    expect(trainedAgain.every((c) => c.generation === 2)).toBe(true);
    expect(trainedAgain.some((c) => first.some((f) => f.id === c.id))).toBe(false);
    expect(second.map((c) => c.id)).toContain(pushedId);
    expect([...index.fullText.keys()].sort()).toEqual(trainedAgain.map((c) => c.id).sort());
    expect(await world.content.getCollection(TEAM, collection.datasetId, collection.id)).toMatchObject({
      generation: 2,
      status: 'ready',
      dataAmount: 4,
      trainingAmount: 0,
    });
  });

  it('reads no chunks in a first training; a retried message removes what its earlier attempt wrote', async () => {
    const { files, collection, message } = await textCollection();
    const { content, queried } = countingChunkQueries();
    const index = recordingIndexWriter();
    // The first attempt stops after its chunks are written (its postings fail), as a crash or a timeout would.
    const failing = {
      ...index,
      addFullText: async () => {
        throw new Error('postings write failed');
      },
    };
    await expect(train(message, deps({ files, content, index: failing }))).rejects.toThrow('postings write failed');
    expect(queried).toEqual([]);
    const left = await world.content.chunksOf(TEAM, collection.datasetId, collection.id);
    expect(left).toHaveLength(3);

    // The retry finds the collection `training`: it removes the leftovers, then writes its own.
    await train(message, deps({ files, content, index }));
    const after = await world.content.chunksOf(TEAM, collection.datasetId, collection.id);
    expect(after).toHaveLength(3);
    expect(after.some((c) => left.some((l) => l.id === c.id))).toBe(false);
    expect(queried).toHaveLength(1);
    expect(await world.content.getCollection(TEAM, collection.datasetId, collection.id)).toMatchObject({
      generation: 1,
      status: 'ready',
      dataAmount: 3,
    });
  });

  it('keeps data pushed while a first training runs, counted beside its chunks, and reads no chunk to flip', async () => {
    const { files, collection, message } = await textCollection();
    // pushData's writes (functions/kb-data/push-data.ts): a chunk of generation 0, not yet ready, counted as training.
    const pushedId = newObjectId();
    const pushed = {
      pk: collection.pk,
      sk: chunkSortKey(collection.id, 0, pushedId),
      id: pushedId,
      teamId: TEAM,
      tmbId: 'member-1',
      datasetId: collection.datasetId,
      collectionId: collection.id,
      chunkIndex: 0,
      q: 'pushed',
      a: '',
      indexes: [],
      generation: 0,
      ready: false,
      pushed: true,
      updateTime: new Date().toISOString(),
    } as const;
    await world.content.putChunks([pushed]);
    await world.content.addToCounts(TEAM, collection.datasetId, collection.id, { trainingAmount: 1 });
    const { content, queried } = countingChunkQueries();

    await train(message, deps({ files, content }));

    expect(queried).toEqual([]);
    const chunks = await world.content.chunksOf(TEAM, collection.datasetId, collection.id);
    expect(chunks.map((c) => c.generation).sort()).toEqual([0, 1, 1, 1]);
    // The queued collection's 1 became its 3 chunks, then 0; the pushed item still waits for its own message.
    let after = await world.content.getCollection(TEAM, collection.datasetId, collection.id);
    expect(after).toMatchObject({ generation: 1, status: 'ready', dataAmount: 3, trainingAmount: 1 });

    // Its message, after the flip: the pushed chunk becomes readable although its generation is the old one.
    await train(
      { kind: 'data', teamId: TEAM, datasetId: collection.datasetId, collectionId: collection.id, dataIds: [pushedId] },
      deps({ files }),
    );
    after = await world.content.getCollection(TEAM, collection.datasetId, collection.id);
    expect(after).toMatchObject({ dataAmount: 4, trainingAmount: 0 });
    const readableNow = (await world.content.chunksOf(TEAM, collection.datasetId, collection.id)).filter((c) =>
      readable(c, after!),
    );
    expect(readableNow.map((c) => c.q)).toContain('pushed');
    expect(readableNow).toHaveLength(4);
  });

  it('records on the collection that no channel serves the vector model, and keeps the chunks for full text', async () => {
    const { files, collection, message } = await textCollection();
    const embedder = scriptedEmbedder([
      new EmbeddingUnavailableError('no channel serves text-embedding-3-small for group default', false),
    ]);
    const index = recordingIndexWriter();

    await train(message, deps({ files, embedder, index }));

    const after = await world.content.getCollection(TEAM, collection.datasetId, collection.id);
    expect(after).toMatchObject({
      status: 'error',
      error: 'no channel serves text-embedding-3-small for group default',
      failedChunks: 3,
      generation: 1,
    });
    expect(embedder.calls).toBe(1);
    const chunks = await world.content.chunksOf(TEAM, collection.datasetId, collection.id);
    expect(chunks.every((c) => c.ready && c.vectorMissing)).toBe(true);
    expect(index.fullText.size).toBe(3);
    expect(index.vectors.size).toBe(0);
  });

  it('retries a failing embeddings batch with backoff and finishes once the upstream recovers', async () => {
    const { files, collection, message } = await textCollection();
    const failing = () => new EmbeddingUnavailableError('the embeddings call failed (HTTP 500)', true);
    const embedder = scriptedEmbedder([failing(), failing()]);
    const waits: number[] = [];

    await train(message, deps({ files, embedder, sleep: async (ms) => void waits.push(ms), retryBaseMs: 10 }));

    expect(embedder.calls).toBe(3);
    expect(waits).toEqual([10, 20]);
    const after = await world.content.getCollection(TEAM, collection.datasetId, collection.id);
    expect(after).toMatchObject({ status: 'ready', failedChunks: 0 });
  });

  it('gives up on a batch after its attempts and says why on the collection', async () => {
    const { files, collection, message } = await textCollection();
    const failing = () => new EmbeddingUnavailableError('the embeddings call failed (HTTP 500)', true);
    const embedder = scriptedEmbedder([failing(), failing(), failing()]);

    await train(message, deps({ files, embedder }));

    const after = await world.content.getCollection(TEAM, collection.datasetId, collection.id);
    expect(after).toMatchObject({ status: 'error', error: 'the embeddings call failed (HTTP 500)' });
  });

  it('writes question–answer pairs with the agent model for qa training', async () => {
    const { files, collection, message } = await textCollection('FastGPT stores chunks.', 'qa');
    const asked: string[] = [];
    const chat: TrainingDeps['chat'] = async (model) => {
      asked.push(model);
      return 'Q1: What does FastGPT store?\nA1: Chunks.\nQ2: 它存什么？\nA2: 分块。';
    };

    await train(message, deps({ files, chat }));

    expect(asked).toEqual(['gpt-4o-mini']);
    const chunks = await world.content.chunksOf(TEAM, collection.datasetId, collection.id);
    expect(chunks.map((c) => [c.q, c.a])).toEqual([
      ['What does FastGPT store?', 'Chunks.'],
      ['它存什么？', '分块。'],
    ]);
  });

  it('does nothing for a collection deleted before its turn', async () => {
    const { files, collection, message } = await textCollection();
    await world.content.deleteKeys([collection]);
    const embedder = scriptedEmbedder();

    await train(message, deps({ files, embedder }));

    expect(embedder.calls).toBe(0);
    expect(await world.content.chunksOf(TEAM, collection.datasetId, collection.id)).toEqual([]);
  });
});
