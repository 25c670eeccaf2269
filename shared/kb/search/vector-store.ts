import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { BatchWriter, Slots, type WriteRequest } from '#shared/repositories/batch';
import { GroupCommit } from '#shared/repositories/group-commit';
import { type ChunkVector, datasetKey } from '../contract.ts';
import { deletePartition, queryAll } from './dynamo-batch.ts';
import {
  VECTOR_BYTES_ATTRIBUTE,
  VECTOR_SK_PREFIX,
  VECTOR_VERSION_SK,
  vectorAttribute,
  vectorSortKey,
} from './vector-layout.ts';

/** `index`: vectors as number lists for DynamoDB's vector indexes; `exact`: float32 bytes for the exact search. */
export type VectorForm = 'index' | 'exact';

/** A vector as float32 bytes (little-endian, the platform's order on every Lambda and local machine we run). */
export function vectorBytes(vector: readonly number[]): Uint8Array {
  return new Uint8Array(Float32Array.from(vector).buffer);
}

/** Writes and removes the vectors of `kbVectors` (shared/kb/search/vector-layout.ts). */
export class DynamoVectorStore {
  private readonly writer: BatchWriter;
  /** The knowledge base's vector version (`w`, read by the exact search's cache), bumped once for many writers. */
  private readonly versions: GroupCommit<{ n: number }>;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly form: VectorForm,
  ) {
    this.writer = new BatchWriter(client, tableName, { writeConcurrency: 8 });
    this.versions = new GroupCommit(
      () => ({ n: 0 }),
      (into, changes) => {
        into.n += changes.n;
      },
      (pk, { n }) => this.bump(pk, n),
    );
  }

  async put(teamId: string, datasetId: string, vectors: readonly ChunkVector[]): Promise<void> {
    if (vectors.length === 0) return;
    const pk = datasetKey(teamId, datasetId);
    const requests: WriteRequest[] = vectors.map((v) => {
      if (v.vector.length === 0 || !v.vector.every(Number.isFinite)) {
        throw new Error('A vector must hold finite numbers');
      }
      return {
        PutRequest: {
          Item: {
            pk,
            sk: vectorSortKey(v.dataId, v.indexNo),
            dataId: v.dataId,
            collectionId: v.collectionId,
            ...(v.chunkIndex !== undefined ? { chunkIndex: v.chunkIndex } : {}),
            ...(this.form === 'index'
              ? { [vectorAttribute(v.vector.length)]: [...v.vector] }
              : { [VECTOR_BYTES_ATTRIBUTE]: vectorBytes(v.vector) }),
          },
        },
      };
    });
    await this.writer.writeAll(requests);
    await this.bumpVersion(pk);
  }

  async remove(teamId: string, datasetId: string, dataIds: readonly string[]): Promise<void> {
    if (dataIds.length === 0) return;
    const pk = datasetKey(teamId, datasetId);
    // One Query per chunk (its vectors' keys hold its index numbers): 32 in flight, so a slice of 1,000 chunks takes
    // about 32 round trips of time.
    const slots = new Slots(32);
    const keys = await Promise.all(
      [...new Set(dataIds)].map((dataId) =>
        slots.run(
          () =>
            queryAll(this.client, {
              TableName: this.tableName,
              KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
              ExpressionAttributeValues: { ':pk': pk, ':prefix': `${VECTOR_SK_PREFIX}${dataId}#` },
              ProjectionExpression: 'pk, sk',
            }),
          undefined,
        ),
      ),
    );
    const requests = keys.flat().map((k) => ({ DeleteRequest: { Key: { pk: k.pk, sk: k.sk } } }));
    if (requests.length === 0) return;
    await this.writer.writeAll(requests);
    await this.bumpVersion(pk);
  }

  async removeDataset(teamId: string, datasetId: string): Promise<void> {
    await deletePartition(this.client, this.writer, this.tableName, datasetKey(teamId, datasetId));
  }

  /** Resolves once a version bump that began after the caller's writes is stored. */
  private bumpVersion(pk: string): Promise<void> {
    return this.versions.add(pk, { n: 1 });
  }

  private async bump(pk: string, n: number): Promise<void> {
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { pk, sk: VECTOR_VERSION_SK },
        UpdateExpression: 'ADD #w :n',
        ExpressionAttributeNames: { '#w': 'w' },
        ExpressionAttributeValues: { ':n': n },
      }),
    );
  }
}
