import { datasetErrors } from '#shared/errors';
import type { CallerContext } from '#shared/http';
import { newObjectId } from '#shared/ids';
import { type CollectionDeps, requireCollection, requireDataset } from '#shared/kb/collections';
import { type ChunkRecord, chunkSortKey, datasetKey, defaultIndexes } from '#shared/kb/contract';
import { ofCurrentSet } from '#shared/kb/data';
import { countTokens } from '#shared/kb/tokens';
import { type ModelCatalog, modelItem } from '#shared/model-catalog';
import type { KbContentRepository } from '#shared/repositories/kb-content';
import type { InsertDataBody, PushDataBody } from '#shared/schemas/kb-content';

export interface PushDataDeps extends Pick<CollectionDeps, 'datasets' | 'queue' | 'now'> {
  readonly content: Pick<KbContentRepository, 'findCollection' | 'chunksOf' | 'putChunks' | 'addToCounts'>;
  readonly catalog: ModelCatalog;
}

type PushItem = PushDataBody['data'][number];

/** FastGPT's answer: what was queued, and the items left out with why. */
export interface PushDataResult {
  insertLen: number;
  overToken: PushItem[];
  repeat: PushItem[];
  error: PushItem[];
}

/**
 * Queues up to 200 items (`q`, `a`, `indexes`) of one collection for training. An item without `q`, one repeating a
 * chunk of the collection (or an earlier item), or one over the vector model's token limit is reported, not stored.
 */
export async function pushData(
  input: { body: PushDataBody; caller: CallerContext },
  deps: PushDataDeps,
): Promise<PushDataResult> {
  return (await queueItems(input, deps)).result;
}

/**
 * FastGPT's insertData: one item, its id answered. FastGPT embeds it before it answers; here it is queued like a
 * pushData item (searchable once embedded, as everything else), so the call answers at once. An item pushData would
 * report is refused instead: no `q` 507004, a repeat or too many tokens 507000 (FastGPT's free-text 500s).
 */
export async function insertData(
  input: { body: InsertDataBody; caller: CallerContext },
  deps: PushDataDeps,
): Promise<string> {
  const { collectionId, ...item } = input.body;
  const { result, ids } = await queueItems({ body: { collectionId, data: [item] }, caller: input.caller }, deps);
  if (result.error.length > 0) throw datasetErrors.missingParams('q is required');
  if (result.repeat.length > 0) throw datasetErrors.invalidParams('The same q and a are already in this collection');
  if (result.overToken.length > 0)
    throw datasetErrors.invalidParams("q and a count more tokens than the knowledge base's vector model takes");
  return ids[0] as string;
}

async function queueItems(
  input: { body: Pick<PushDataBody, 'collectionId' | 'data'>; caller: CallerContext },
  deps: PushDataDeps,
): Promise<{ result: PushDataResult; ids: string[] }> {
  const { body, caller } = input;
  const collection = await requireCollection(deps.content, caller.teamId, body.collectionId);
  if (collection.type === 'folder') throw datasetErrors.invalidParams('collectionId must not be a folder');
  const { teamId, datasetId } = collection;
  const dataset = await requireDataset(deps.datasets, teamId, datasetId);
  const maxToken = modelItem(deps.catalog, 'vector', dataset.vectorModel).maxToken;

  const existing = (await deps.content.chunksOf(teamId, datasetId, collection.id)).filter((c) =>
    ofCurrentSet(c, collection),
  );
  const seen = new Set(existing.map((c) => contentKey(c.q, c.a)));
  let nextIndex = existing.reduce((max, c) => Math.max(max, c.chunkIndex + 1), 0);
  const result: PushDataResult = { insertLen: 0, overToken: [], repeat: [], error: [] };
  const updateTime = deps.now().toISOString();
  const chunks: ChunkRecord[] = [];
  for (const item of body.data) {
    const q = item.q?.trim() ?? '';
    const a = item.a?.trim() ?? '';
    if (q === '') {
      result.error.push(item);
      continue;
    }
    const key = contentKey(q, a);
    if (seen.has(key)) {
      result.repeat.push(item);
      continue;
    }
    if (countTokens(`${q}${a}`) > maxToken) {
      result.overToken.push(item);
      continue;
    }
    seen.add(key);
    const id = newObjectId(deps.now());
    const chunkIndex = item.chunkIndex ?? nextIndex;
    nextIndex = Math.max(nextIndex, chunkIndex + 1);
    const custom = (item.indexes ?? [])
      .filter((i) => i.text.trim() !== '' && i.type !== 'default')
      .map((i) => ({ type: i.type ?? 'custom', dataId: id, text: i.text.trim() }));
    chunks.push({
      pk: datasetKey(teamId, datasetId),
      sk: chunkSortKey(collection.id, chunkIndex, id),
      id,
      teamId,
      tmbId: caller.tmbId,
      datasetId,
      collectionId: collection.id,
      chunkIndex,
      q,
      a,
      indexes: [...defaultIndexes(id, { q, a }), ...custom],
      generation: collection.generation,
      ready: false,
      pushed: true,
      updateTime,
    });
  }
  if (chunks.length > 0) {
    await deps.content.putChunks(chunks);
    await deps.content.addToCounts(teamId, datasetId, collection.id, { trainingAmount: chunks.length });
    await deps.queue.send({
      kind: 'data',
      teamId,
      datasetId,
      collectionId: collection.id,
      dataIds: chunks.map((c) => c.id),
    });
  }
  result.insertLen = chunks.length;
  return { result, ids: chunks.map((c) => c.id) };
}

const contentKey = (q: string, a: string) => `${q.trim()}\u0000${a.trim()}`;
