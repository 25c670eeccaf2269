import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { collectionSortKey, datasetKey } from '#shared/kb/contract';
import { BatchRetry, chunks, GET_BATCH } from './batch.ts';
import { type DatasetRecord, datasetRecordOf } from './datasets.ts';
import { GroupCommit } from './group-commit.ts';
import type { StoredCollection } from './kb-content.ts';

/*
 * What a training message is about (shared/kb/training.ts): the collection it names and that collection's knowledge
 * base, read together in strongly consistent BatchGetItem calls over `kbContent` and `datasets` instead of two
 * GetItems. A lone message's read goes at once, as one call; reads that arrive while one is in flight (`npm start`'s
 * queue starts hundreds of trainings at once) wait and go together in the next, 50 messages per call, each key asked
 * once: a 200-collection bench round reads in 5 calls instead of 400 GetItems (docs/performance.md, "Knowledge-base
 * training, 2026-11-28, later": measured, it saves the SDK's work per request more than the engine's).
 */

export interface TrainingSubject {
  readonly collection?: StoredCollection;
  readonly dataset?: DatasetRecord;
}

interface Wanted {
  readonly teamId: string;
  readonly datasetId: string;
  readonly collectionId: string;
  found?: TrainingSubject;
}

/** Messages per call: two keys each, within BatchGetItem's 100. */
const SUBJECTS_PER_CALL = GET_BATCH / 2;

export class TrainingSubjects {
  private readonly retry = new BatchRetry();
  private readonly reads = new GroupCommit<Wanted[]>(
    () => [],
    (into, wanted) => void into.push(...wanted),
    async (_key, wanted) => {
      await Promise.all(chunks(wanted, SUBJECTS_PER_CALL).map((some) => this.readSome(some)));
    },
  );

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tables: { readonly kbContent: string; readonly datasets: string },
  ) {}

  /** The collection and its knowledge base as they stand (either undefined when absent, the collection when deleting). */
  async read(teamId: string, datasetId: string, collectionId: string): Promise<TrainingSubject> {
    const wanted: Wanted = { teamId, datasetId, collectionId };
    await this.reads.add('subjects', [wanted]);
    return wanted.found ?? {};
  }

  private async readSome(wanted: readonly Wanted[]): Promise<void> {
    const { kbContent, datasets } = this.tables;
    const contentKey = (w: Wanted) => ({
      pk: datasetKey(w.teamId, w.datasetId),
      sk: collectionSortKey(w.collectionId),
    });
    const datasetKeyOf = (w: Wanted) => ({ teamId: w.teamId, id: w.datasetId });
    // BatchGetItem refuses a key asked twice in one call (many collections of one knowledge base).
    const distinct = <K>(keys: K[]) => [...new Map(keys.map((k) => [JSON.stringify(k), k])).values()];
    const found = await this.retry.getBatch(this.client, {
      [kbContent]: { Keys: distinct(wanted.map(contentKey)), ConsistentRead: true },
      [datasets]: { Keys: distinct(wanted.map(datasetKeyOf)), ConsistentRead: true },
    });
    const collections = new Map((found[kbContent] ?? []).map((item) => [`${item.pk}\n${item.sk}`, item]));
    const knowledgeBases = new Map((found[datasets] ?? []).map((item) => [`${item.teamId}\n${item.id}`, item]));
    for (const w of wanted) {
      const key = contentKey(w);
      const stored = collections.get(`${key.pk}\n${key.sk}`) as StoredCollection | undefined;
      // A collection being deleted is gone to its training: the message does nothing.
      const collection = stored?.deleting === undefined ? stored : undefined;
      const dataset = knowledgeBases.get(`${w.teamId}\n${w.datasetId}`);
      w.found = {
        ...(collection === undefined ? {} : { collection }),
        ...(dataset === undefined ? {} : { dataset: datasetRecordOf(dataset) }),
      };
    }
  }
}
