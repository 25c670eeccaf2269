import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { collectionSortKey, datasetKey } from '#shared/kb/contract';
import { BatchRetry } from './batch.ts';
import { type DatasetRecord, datasetRecordOf } from './datasets.ts';
import type { StoredCollection } from './kb-content.ts';

/*
 * What a training message is about (shared/kb/training.ts): the collection it names and that collection's knowledge
 * base, read together in one strongly consistent BatchGetItem over `kbContent` and `datasets` instead of two GetItems.
 * One request fewer per message: when `npm start` trains hundreds of collections at once, every single-item request
 * costs the embedded engine as much as a batch of writes (docs/performance.md, "Knowledge-base training").
 */

export interface TrainingSubject {
  readonly collection?: StoredCollection;
  readonly dataset?: DatasetRecord;
}

export class TrainingSubjects {
  private readonly retry = new BatchRetry();

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tables: { readonly kbContent: string; readonly datasets: string },
  ) {}

  /** The collection and its knowledge base as they stand (either undefined when absent). */
  async read(teamId: string, datasetId: string, collectionId: string): Promise<TrainingSubject> {
    const { kbContent, datasets } = this.tables;
    const found = await this.retry.getBatch(this.client, {
      [kbContent]: {
        Keys: [{ pk: datasetKey(teamId, datasetId), sk: collectionSortKey(collectionId) }],
        ConsistentRead: true,
      },
      [datasets]: { Keys: [{ teamId, id: datasetId }], ConsistentRead: true },
    });
    const collection = found[kbContent]?.[0] as StoredCollection | undefined;
    const dataset = found[datasets]?.[0];
    return {
      ...(collection === undefined ? {} : { collection }),
      ...(dataset === undefined ? {} : { dataset: datasetRecordOf(dataset) }),
    };
  }
}
