import type { KbContentRepository, StoredCollection } from '../repositories/kb-content.ts';
import type { TrainingSubjects } from '../repositories/training-subjects.ts';
import {
  type AddFullTextOptions,
  type ChunkIndexWriter,
  type ChunkRecord,
  type ChunkVector,
  chunkSortKey,
  datasetKey,
  defaultIndexes,
  type Embedder,
  EmbeddingUnavailableError,
  SourceError,
  type SourceFileStore,
  type SourceReader,
  type SplitText,
} from './contract.ts';
import { adjustFailedChunks } from './failed-chunks.ts';
import type { ChatModel } from './relay-models.ts';
import { itemsOf, type SourceText, type TrainingItem } from './training-items.ts';
import type { TrainingMessage } from './training-queue.ts';

/*
 * The training core (docs/knowledge-base-api.md, "Training"): read the source, split, store the chunks once in the
 * next generation (nobody's yet), index their text while embedding them through the relay, flip the collection's
 * generation in one write, delete the old generation. A reader sees the old set or the new one, never a mix. The
 * deployed function (functions/train-collection) and `npm start`'s in-process queue both call `train`.
 */

export interface TrainingDeps {
  readonly content: Pick<
    KbContentRepository,
    'updateCollection' | 'getCollection' | 'chunksOf' | 'putChunks' | 'deleteKeys' | 'addToCounts'
  >;
  /** The message's collection and its knowledge base, read together. */
  readonly subjects: Pick<TrainingSubjects, 'read'>;
  readonly files: Pick<SourceFileStore, 'get'>;
  /** Reads link and file collections (shared/kb/sources); absent = such collections fail with a clear error. */
  readonly sources?: SourceReader;
  readonly split: SplitText;
  readonly embedder: Embedder;
  /** The Q&A writer of `trainingType: "qa"`. */
  readonly chat?: ChatModel;
  readonly index: ChunkIndexWriter;
  readonly newId: () => string;
  readonly now: () => Date;
  /** The models a dataset without one uses (the catalogue's defaults). */
  readonly defaults: { readonly vectorModel: string; readonly agentModel: string };
  readonly sleep?: (ms: number) => Promise<void>;
  /** Texts per embeddings request (default 32). */
  readonly embedBatchSize?: number;
  /** Attempts per batch, the first included (default 3); waits double from `retryBaseMs` (default 500 ms). */
  readonly embedAttempts?: number;
  readonly retryBaseMs?: number;
}

/**
 * BatchWriteItem calls in flight per table for the training's content writes: the same as the vector and term
 * stores' writers, so the chunks never wait behind a smaller bound than their postings and vectors.
 */
export const TRAINING_WRITE_CONCURRENCY = 8;

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** How a message reached its run: SQS's `ApproximateReceiveCount` (this receive included), when the queue says it. */
export interface Delivery {
  readonly receives: number;
}

/**
 * Runs one queued message to its end. Throws only for what a retry of the whole message can fix (storage errors). A
 * `delete` is not training's: the batch runs it with its time budget (functions/train-collection). `delivery` unknown
 * = the message may follow an earlier attempt.
 */
export async function train(message: TrainingMessage, deps: TrainingDeps, delivery?: Delivery): Promise<void> {
  if (message.kind === 'collection') await trainCollection(message, deps, delivery);
  else if (message.kind === 'data') await trainData(message, deps);
}

/**
 * After a collection's training failed on its last attempt (the message goes to the dead-letter queue): the collection
 * says so instead of showing `training` for ever. Only while that training is still the collection's next (a newer
 * one, or a delete, has moved on otherwise); its chunks of before, if any, stay readable. The failed attempts' own
 * chunks (of the message's generation) go first: a training again is queued into that same generation and, finding
 * the collection not `training`, looks for no leftovers, so they would become readable beside its own. `cause` names
 * the error (its class, never a customer's text).
 */
export async function markTrainingFailed(
  message: Extract<TrainingMessage, { kind: 'collection' }>,
  deps: TrainingDeps,
  cause: string,
): Promise<void> {
  const { teamId, datasetId, collectionId, generation } = message;
  const { collection } = await deps.subjects.read(teamId, datasetId, collectionId);
  if (collection === undefined || collection.generation >= generation) return;
  await removeChunks(deps, collection, (c) => c.generation === generation && c.pushed !== true);
  await deps.content.updateCollection(
    teamId,
    datasetId,
    collectionId,
    {
      status: 'error',
      error: `training failed on every attempt (${cause}); train the collection again once the cause is fixed`,
      trainingAmount: 0,
    },
    { expectedGeneration: collection.generation, unlessStatus: 'error' },
  );
}

async function trainCollection(
  message: Extract<TrainingMessage, { kind: 'collection' }>,
  deps: TrainingDeps,
  delivery: Delivery | undefined,
): Promise<void> {
  const { teamId, datasetId, collectionId, generation } = message;
  const { collection, dataset } = await deps.subjects.read(teamId, datasetId, collectionId);
  // Gone, or a newer training already took over: nothing to do.
  if (collection === undefined || collection.generation >= generation || collection.type === 'folder') return;
  if (dataset === undefined) return;
  const current = collection.generation;
  type Update = Parameters<TrainingDeps['content']['updateCollection']>;
  const setState = (changes: Update[3], remove: readonly ('error' | 'failedChunks')[] = [], more: Update[4] = {}) =>
    deps.content.updateCollection(teamId, datasetId, collectionId, changes, {
      expectedGeneration: current,
      remove,
      ...more,
    });
  // Counts are added to, never set: data pushed into the collection meanwhile counts beside its chunks (pushed chunks
  // stay, ChunkRecord.pushed). A queued collection counts 1 until it is split, first (shared/kb/collections.ts) and
  // when it is trained again (shared/kb/retraining.ts).
  /**
   * Marks the collection `training` with `changes` and `add`; when an earlier attempt of this message already did (it is
   * `training`: it may have written chunks), with `changes` alone. Undefined when it is gone or has moved on.
   */
  const claim = async (changes: Update[3], add?: NonNullable<Update[4]>['add']) => {
    const remove = ['error', 'failedChunks'] as const;
    if (
      await setState({ ...changes, status: 'training' }, remove, { ...(add ? { add } : {}), unlessStatus: 'training' })
    )
      return 'fresh';
    return (await setState({ ...changes, status: 'training' }, remove)) ? 'resumed' : undefined;
  };
  // Writing Q&A pairs takes the agent model minutes: the collection shows `training` meanwhile. Reading a source and
  // splitting it take seconds at most, so chunk training says it once, with the amount, before it deletes or writes.
  // Only an attempt that found the collection already `training` may follow an earlier attempt's chunk writes.
  const qa = collection.settings?.trainingType === 'qa';
  let resumed = false;
  if (qa) {
    const claimed = await claim({});
    if (claimed === undefined) return;
    resumed = claimed === 'resumed';
  }

  let items: TrainingItem[];
  let source: SourceText;
  try {
    ({ items, source } = await itemsOf(collection, dataset.agentModel ?? deps.defaults.agentModel, deps));
  } catch (error) {
    if (!(error instanceof SourceError || error instanceof EmbeddingUnavailableError)) throw error;
    const failed = { status: 'error' as const, error: error.message };
    // A collection trained before keeps its chunks, and so the count of those without a vector.
    const remove = qa || current > 0 ? [] : (['failedChunks'] as const);
    // Takes back the queued collection's 1 (an earlier attempt's amount is not known: then 0).
    if ((await setState(failed, remove, { add: { trainingAmount: -1 }, unlessStatus: 'training' })) === false) {
      await setState({ ...failed, trainingAmount: 0 }, remove);
    }
    return;
  }
  // The amount: the queued 1 becomes the item count, once.
  const added = { trainingAmount: items.length - 1 };
  // The first receive of a FIFO message follows no earlier attempt (SQS FIFO hands a message group's message to one
  // consumer at a time), so it has no leftovers to find. Such a training of one embeddings request's chunks at most
  // does not say `training` first: it is done within that request, and its flip below is its only collection write.
  const firstReceive = delivery?.receives === 1;
  const announced = qa || !firstReceive || items.length > (deps.embedBatchSize ?? 32);
  if (!qa && announced) {
    const claimed = await claim({}, added);
    if (claimed === undefined) return;
    resumed = claimed === 'resumed' || (delivery !== undefined && !firstReceive);
  } else if (qa && !resumed && !(await setState({}, [], { add: added }))) return;

  // Leftovers of an earlier attempt at this generation (a retried message) go first, so nothing is doubled. Chunks of
  // this generation are written only after a claim or on a first receive, so an attempt that found the collection not
  // `training` on its message's first receive has none.
  if (resumed) await removeChunks(deps, collection, (c) => c.generation === generation && c.pushed !== true);

  const updateTime = deps.now().toISOString();
  // Written once, already `ready`: the generation is nobody's until the flip below, which comes after their postings
  // and vectors, so no reader sees them sooner. Only chunks whose embedding failed are written again (vectorMissing).
  const chunks: ChunkRecord[] = items.map((item, chunkIndex) => {
    const id = deps.newId();
    return {
      pk: datasetKey(teamId, datasetId),
      sk: chunkSortKey(collectionId, chunkIndex, id),
      id,
      teamId,
      tmbId: collection.tmbId,
      datasetId,
      collectionId,
      chunkIndex,
      q: item.q,
      a: item.a,
      indexes: item.indexes?.map((index) => ({ ...index, dataId: id })) ?? defaultIndexes(id, item),
      generation,
      ready: true,
      updateTime,
    };
  });
  // Their postings are computed and their embeddings asked for while they are written; neither is stored before them.
  const stored = deps.content.putChunks(chunks);
  const { ready, error } = await indexChunks(chunks, dataset.vectorModel ?? deps.defaults.vectorModel, deps, {
    fresh: true,
    after: stored,
  });
  const missing = ready.filter((c) => c.vectorMissing);
  if (missing.length > 0) await deps.content.putChunks(missing);

  // The old generation's chunks: only a collection trained before holds any (a training writes its own generation;
  // pushed chunks stay whatever their generation). Read before the flip, so its one write moves the count by the
  // difference; deleted after it.
  const replaced =
    current > 0 ? (await chunksOf(deps, collection)).filter((c) => c.generation !== generation && !c.pushed) : [];
  const flipped = await setState(
    {
      generation,
      status: error === undefined ? 'ready' : 'error',
      ...(error === undefined ? {} : { error }),
      failedChunks: missing.length,
      ...source,
      trainedAt: deps.now().toISOString(),
    },
    // A training that did not say `training` first takes a failed training's error away here.
    error === undefined && !announced ? ['error'] : [],
    // Its queued 1 was never made the item count.
    { add: { dataAmount: ready.length - replaced.length, trainingAmount: announced ? -items.length : -1 } },
  );
  if (flipped === false) {
    // Deleted or re-trained meanwhile: this generation is nobody's.
    await removeChunks(deps, collection, (c) => c.generation === generation && c.pushed !== true);
    return;
  }
  await dropChunks(deps, collection, replaced);
}

/** Embeds chunks pushed or edited one by one, then makes the new ones readable and counts them. */
async function trainData(message: Extract<TrainingMessage, { kind: 'data' }>, deps: TrainingDeps): Promise<void> {
  const { teamId, datasetId, collectionId } = message;
  const { collection, dataset } = await deps.subjects.read(teamId, datasetId, collectionId);
  if (collection === undefined || dataset === undefined) return;
  const wanted = new Set(message.dataIds);
  const chunks = (await deps.content.chunksOf(teamId, datasetId, collectionId)).filter((c) => wanted.has(c.id));
  const fresh = chunks.filter((c) => !c.ready).length;
  // Chunks retried after their embedding failed (data/update, training/updateTrainingData) are counted already.
  const missingBefore = chunks.filter((c) => c.ready && c.vectorMissing).length;
  // An edited chunk's old vectors and postings go before the new ones are written (its index texts may be fewer).
  const edited = chunks.filter((c) => c.ready).map((c) => c.id);
  if (edited.length > 0) await deps.index.removeChunks(teamId, datasetId, edited);
  const { ready, error } = await indexChunks(chunks, dataset.vectorModel ?? deps.defaults.vectorModel, deps);
  await deps.content.putChunks(ready);
  await deps.content.addToCounts(teamId, datasetId, collectionId, { trainingAmount: -fresh, dataAmount: fresh });
  // The count moves by the difference: a retried chunk that fails again is not counted twice, one that gets its vector
  // is taken off, and the last one takes the collection's error away (shared/kb/failed-chunks.ts).
  const delta = ready.filter((c) => c.vectorMissing).length - missingBefore;
  if (error !== undefined || delta !== 0) {
    await adjustFailedChunks(deps.content, message, delta, error === undefined ? {} : { error });
  }
}

/**
 * Indexes chunks for full-text search, embeds their index texts batch by batch (each batch retried with backoff), and
 * answers them ready, each without vectors marked `vectorMissing`, with the error that stopped the embedding.
 */
async function indexChunks(
  chunks: readonly ChunkRecord[],
  model: string,
  deps: TrainingDeps,
  options: AddFullTextOptions = {},
): Promise<{ ready: ChunkRecord[]; error?: string }> {
  if (chunks.length === 0) {
    await options.after;
    return { ready: [] };
  }
  const { teamId, datasetId } = chunks[0] as ChunkRecord;
  // The postings and the embeddings side by side: neither needs the other, and the chunks stay unreadable until both
  // are done. Both are awaited to their end before a failure of either is thrown.
  // Awaited below whatever either side does; marked handled now, so a side that stops early leaves no stray rejection.
  options.after?.catch(() => undefined);
  const [fullText, embedding] = await Promise.allSettled([
    deps.index.addFullText(
      teamId,
      datasetId,
      chunks.map((c) => ({
        dataId: c.id,
        collectionId: c.collectionId,
        chunkIndex: c.chunkIndex,
        // Each distinct text once: the default index text is the question itself when there is no answer.
        texts: [...new Set([c.q, c.a, ...c.indexes.map((i) => i.text)])].filter(Boolean),
      })),
      options,
    ),
    embedChunks(chunks, model, deps, options.after),
  ]);
  await options.after;
  if (fullText.status === 'rejected') throw fullText.reason;
  if (embedding.status === 'rejected') throw embedding.reason;
  const { embedded, error } = embedding.value;
  const ready = chunks.map((c): ChunkRecord => {
    const { vectorMissing: _old, ...rest } = c;
    return embedded.has(c.id) ? { ...rest, ready: true } : { ...rest, ready: true, vectorMissing: true };
  });
  return error === undefined ? { ready } : { ready, error };
}

/** Embeds the chunks' index texts batch by batch and stores their vectors; stops at the first batch that cannot be. */
async function embedChunks(
  chunks: readonly ChunkRecord[],
  model: string,
  deps: TrainingDeps,
  after?: Promise<unknown>,
): Promise<{ embedded: Set<string>; error?: string }> {
  const { teamId, datasetId } = chunks[0] as ChunkRecord;
  const texts = chunks.flatMap((c) => c.indexes.map((index, indexNo) => ({ chunk: c, indexNo, text: index.text })));
  const embedded = new Set<string>();
  const size = deps.embedBatchSize ?? 32;
  for (let start = 0; start < texts.length; start += size) {
    const batch = texts.slice(start, start + size);
    try {
      const vectors = await embedWithRetry(
        model,
        batch.map((t) => t.text),
        deps,
      );
      const rows: ChunkVector[] = batch.map((t, i) => ({
        dataId: t.chunk.id,
        collectionId: t.chunk.collectionId,
        indexNo: t.indexNo,
        vector: vectors[i] as number[],
      }));
      await after;
      await deps.index.putVectors(teamId, datasetId, rows);
      for (const t of batch) embedded.add(t.chunk.id);
    } catch (e) {
      if (!(e instanceof EmbeddingUnavailableError)) throw e;
      return { embedded, error: e.message };
    }
  }
  return { embedded };
}

async function embedWithRetry(model: string, texts: string[], deps: TrainingDeps): Promise<number[][]> {
  const attempts = deps.embedAttempts ?? 3;
  const sleep = deps.sleep ?? defaultSleep;
  for (let attempt = 1; ; attempt++) {
    try {
      return await deps.embedder.embed(model, texts);
    } catch (error) {
      const retryable = error instanceof EmbeddingUnavailableError && error.retryable;
      if (!retryable || attempt >= attempts) {
        if (error instanceof EmbeddingUnavailableError) throw error;
        throw new EmbeddingUnavailableError(`the embeddings call for ${model} failed`, false);
      }
      await sleep((deps.retryBaseMs ?? 500) * 2 ** (attempt - 1));
    }
  }
}

/** Deletes a collection's chunks that `which` picks, their vectors and postings first. */
async function removeChunks(
  deps: TrainingDeps,
  collection: StoredCollection,
  which: (chunk: ChunkRecord) => boolean,
): Promise<void> {
  await dropChunks(deps, collection, (await chunksOf(deps, collection)).filter(which));
}

const chunksOf = (deps: TrainingDeps, c: StoredCollection) => deps.content.chunksOf(c.teamId, c.datasetId, c.id);

/** Deletes chunks with their postings and vectors (the index first: a chunk is never found without its item). */
async function dropChunks(deps: TrainingDeps, collection: StoredCollection, doomed: readonly ChunkRecord[]) {
  if (doomed.length === 0) return;
  await deps.index.removeChunks(
    collection.teamId,
    collection.datasetId,
    doomed.map((c) => c.id),
  );
  await deps.content.deleteKeys(doomed);
}
