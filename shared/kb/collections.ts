import { OWNER } from '../dataset-views.ts';
import { datasetErrors } from '../errors.ts';
import { newObjectId } from '../ids.ts';
import type { DatasetRecord, DatasetRepository, DynamoDatasetRepository } from '../repositories/datasets.ts';
import { collectionParentKey, type KbContentRepository, type StoredCollection } from '../repositories/kb-content.ts';
import {
  type ChunkSettings,
  type CollectionType,
  collectionSortKey,
  datasetKey,
  type NewSourceCollection,
  type SourceFileStore,
} from './contract.ts';
import type { SourceCollections } from './sources/collections-port.ts';
import type { TrainingQueue } from './training-queue.ts';
import { trainingStatusOf } from './training-stages.ts';

/*
 * The collections' core (docs/knowledge-base-api.md, "Collections"): create (empty, folder, text, and a source
 * collection for the link and file calls), and the views FastGPT's clients read. The functions under functions/kb-*
 * are thin handlers over it.
 */

export interface CollectionDeps {
  readonly datasets: Pick<DynamoDatasetRepository, 'get' | 'markContent'>;
  readonly content: Pick<KbContentRepository, 'putCollection' | 'findCollection' | 'getCollection'>;
  readonly queue: TrainingQueue;
  readonly now: () => Date;
  readonly newId?: () => string;
}

/** The caller's knowledge base (not a folder) with this id, or 404/501002 (absent or another team's). */
export async function requireDataset(
  datasets: Pick<DatasetRepository, 'get'>,
  teamId: string,
  datasetId: string,
): Promise<DatasetRecord> {
  const dataset = await datasets.get(teamId, datasetId);
  if (dataset === undefined) throw datasetErrors.unExistDataset('The knowledge base does not exist');
  if (dataset.type !== 'dataset') throw datasetErrors.invalidParams('datasetId must refer to a knowledge base');
  return dataset;
}

/** The caller's collection with this id, or 404/501003 (absent or another team's: never said which). */
export async function requireCollection(
  content: Pick<KbContentRepository, 'findCollection'>,
  teamId: string,
  id: string,
): Promise<StoredCollection> {
  const collection = await content.findCollection(teamId, id);
  if (collection === undefined) throw datasetErrors.unExistCollection('The collection does not exist');
  return collection;
}

/** A parent collection must be a folder of the same knowledge base. */
async function requireParentFolder(
  deps: CollectionDeps,
  teamId: string,
  datasetId: string,
  parentId: string | null,
): Promise<void> {
  if (parentId === null) return;
  const parent = await deps.content.getCollection(teamId, datasetId, parentId);
  if (parent === undefined) throw datasetErrors.unExistCollection('The parent collection does not exist');
  if (parent.type !== 'folder') throw datasetErrors.invalidParams('parentId must refer to a collection folder');
}

/** What every new collection is given. */
export interface NewCollection {
  readonly teamId: string;
  readonly tmbId: string;
  readonly datasetId: string;
  readonly parentId: string | null;
  readonly name: string;
  readonly type: CollectionType;
  readonly settings?: ChunkSettings;
  readonly metadata?: Readonly<Record<string, unknown>>;
  readonly tags?: readonly string[];
  readonly fileId?: string;
  readonly rawLink?: string;
  readonly rawTextLength?: number;
  readonly hashRawText?: string;
  /** True when the collection has a source to train from: it is stored `queued` and its training is queued. */
  readonly train: boolean;
}

/** Stores a new collection (its dataset and parent checked) and, when it has a source, queues its training. */
export async function storeCollection(input: NewCollection, deps: CollectionDeps): Promise<StoredCollection> {
  const { teamId, datasetId } = input;
  const dataset = await requireDataset(deps.datasets, teamId, datasetId);
  // Said before the collection is stored, so a delete never skips a knowledge base's content (DatasetRecord.noContent).
  if (dataset.noContent === true && !(await deps.datasets.markContent(teamId, datasetId))) {
    throw datasetErrors.unExistDataset('The knowledge base does not exist');
  }
  await requireParentFolder(deps, teamId, datasetId, input.parentId);
  const id = (deps.newId ?? (() => newObjectId(deps.now())))();
  const time = deps.now().toISOString();
  const record: StoredCollection = {
    pk: datasetKey(teamId, datasetId),
    sk: collectionSortKey(id),
    id,
    teamId,
    tmbId: input.tmbId,
    datasetId,
    parentId: input.parentId,
    parentKey: collectionParentKey(teamId, datasetId, input.parentId),
    type: input.type,
    name: input.name,
    ...(input.tags ? { tags: [...input.tags] } : {}),
    forbid: false,
    ...(input.settings ? { settings: input.settings } : {}),
    ...(input.fileId ? { fileId: input.fileId } : {}),
    ...(input.rawLink ? { rawLink: input.rawLink } : {}),
    ...(input.rawTextLength !== undefined ? { rawTextLength: input.rawTextLength } : {}),
    ...(input.hashRawText ? { hashRawText: input.hashRawText } : {}),
    metadata: input.metadata ?? {},
    status: input.train ? 'queued' : 'ready',
    generation: 0,
    dataAmount: 0,
    // A queued collection counts as one unit of training until its source is split (FastGPT's list then shows it
    // training); the training core then counts its chunks.
    trainingAmount: input.train ? 1 : 0,
    createTime: time,
    updateTime: time,
  };
  if (!(await deps.content.putCollection(record))) {
    throw datasetErrors.tooManyRequests('The new collection id was taken; send the call again');
  }
  if (input.train) {
    await deps.queue.send({ kind: 'collection', teamId, datasetId, collectionId: id, generation: 1 });
  }
  return record;
}

/**
 * The link and file calls' entry (kb-sources): stores a collection whose source is a link or a stored file and queues
 * its training; answers the new collection's id. The dataset and the parent are checked as for every create.
 */
export async function createSourceCollection(input: NewSourceCollection, deps: CollectionDeps): Promise<string> {
  const record = await storeCollection(
    {
      teamId: input.teamId,
      tmbId: input.tmbId,
      datasetId: input.datasetId,
      parentId: input.parentId,
      name: input.name,
      type: input.type,
      settings: input.settings,
      ...(input.metadata ? { metadata: input.metadata } : {}),
      ...(input.tags ? { tags: input.tags } : {}),
      ...(input.fileId ? { fileId: input.fileId } : {}),
      ...(input.rawLink ? { rawLink: input.rawLink } : {}),
      train: true,
    },
    deps,
  );
  return record.id;
}

/** The collections core as the source calls (link, file, read) use it (shared/kb/sources/collections-port.ts). */
export function sourceCollectionsOn(deps: CollectionDeps): SourceCollections {
  return {
    createSourceCollection: async (input) => ({ collectionId: await createSourceCollection(input, deps) }),
    findCollection: (teamId, collectionId) => deps.content.findCollection(teamId, collectionId),
  };
}

/** Stores a text as a file of the source store (FastGPT keeps a text collection's text as a `.txt` file). */
export async function storeText(
  files: Pick<SourceFileStore, 'put'>,
  teamId: string,
  name: string,
  text: string,
  fileId: string,
): Promise<void> {
  await files.put({
    teamId,
    fileId,
    name: `${name}.txt`,
    contentType: 'text/plain; charset=utf-8',
    bytes: new TextEncoder().encode(text),
  });
}

/** FastGPT's collection fields every view carries. */
function baseView(c: StoredCollection) {
  return {
    _id: c.id,
    parentId: c.parentId,
    teamId: c.teamId,
    tmbId: c.tmbId,
    datasetId: c.datasetId,
    type: c.type,
    name: c.name,
    tags: c.tags ? [...c.tags] : [],
    forbid: c.forbid ?? false,
    createTime: c.createTime,
    updateTime: c.updateTime,
    trainingType: c.settings?.trainingType ?? 'chunk',
    ...(c.fileId ? { fileId: c.fileId } : {}),
    ...(c.rawLink ? { rawLink: c.rawLink } : {}),
  };
}

/** The training state of a collection in FastGPT's words plus ours (`status`, `errorMsg`). */
function trainingView(c: StoredCollection) {
  return {
    dataAmount: Math.max(0, c.dataAmount ?? 0),
    trainingAmount: Math.max(0, c.trainingAmount ?? 0),
    hasError: c.status === 'error',
    ...trainingStatusOf(c),
    status: c.status,
    ...(c.error ? { errorMsg: c.error } : {}),
    ...(c.failedChunks ? { failedChunks: c.failedChunks } : {}),
  };
}

/** A list item of listV2 (and of the deprecated list). */
export function collectionListItem(c: StoredCollection) {
  return { ...baseView(c), ...trainingView(c), permission: { ...OWNER } };
}

/** FastGPT's `getCollectionSourceData`: the collection's name and its source's id (its file or link), when it has one. */
export function collectionSource(c: StoredCollection): { sourceName: string; sourceId?: string } {
  const sourceId = c.fileId || c.rawLink;
  return { sourceName: c.name, ...(sourceId ? { sourceId } : {}) };
}

/** The detail (FastGPT's DatasetCollectionItemType). */
export function collectionDetail(c: StoredCollection) {
  return {
    ...baseView(c),
    ...trainingView(c),
    metadata: c.metadata ?? {},
    ...(c.rawTextLength !== undefined ? { rawTextLength: c.rawTextLength } : {}),
    ...(c.hashRawText ? { hashRawText: c.hashRawText } : {}),
    chunkSize: c.settings?.chunkSize ?? 1000,
    ...(c.settings?.chunkSplitter ? { chunkSplitter: c.settings.chunkSplitter } : {}),
    ...(c.settings?.indexSize ? { indexSize: c.settings.indexSize } : {}),
    ...(c.settings?.qaPrompt ? { qaPrompt: c.settings.qaPrompt } : {}),
    ...collectionSource(c),
    canWrite: true,
    permission: { ...OWNER },
    indexAmount: Math.max(0, c.dataAmount ?? 0),
    errorCount: c.failedChunks ?? 0,
  };
}
