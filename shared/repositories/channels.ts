import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  ScanCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { ChannelStatus } from '../relay/contract.ts';
import { type BatchRetry, type BatchWriterOptions, chunks, GET_BATCH } from './batch.ts';
import {
  type ChannelLabel,
  type ChannelListEntry,
  type ChannelSummary,
  COMPARED_ATTRIBUTES,
  type ComparedChannel,
  fromChannelItem,
  LABEL_ATTRIBUTES,
  type StoredChannel,
  toChannelItem,
} from './channel-item.ts';
import { TableRepository } from './table-repository.ts';

// The stored channel's types and its item form are read through this module by most of the code.
export * from './channel-item.ts';

/** What `begins_with` finds at the start of a `source` stored as text for this legacy id (see `toChannelItem`). */
function legacyIdPrefix(legacyId: number | string): string {
  return `{"legacyId":${JSON.stringify(legacyId)},`;
}

/** What the import needs from channel storage; the DynamoDB repository below is the real one. */
export interface ChannelStore {
  /** Existing channels among `ids`, by id, with the compared attributes only. */
  getCompared(ids: readonly string[], options?: { signal?: AbortSignal }): Promise<Map<string, ComparedChannel>>;
  /** Every stored channel among `ids`, whole (the import reads channels stored under unkeyed ids to move them). */
  getMany(ids: readonly string[], options?: { signal?: AbortSignal }): Promise<Map<string, StoredChannel>>;
  /**
   * Writes (creates or replaces) every item, then deletes the channels `deletes` names; resolves with the number of
   * items written (deletes not counted).
   */
  putMany(
    items: readonly StoredChannel[],
    options?: { signal?: AbortSignal; deletes?: readonly string[] },
  ): Promise<number>;
  /** True when the table holds no channel at all (a strongly consistent Scan of one key). */
  isEmpty(options?: { signal?: AbortSignal }): Promise<boolean>;
  /** Every stored channel's id (a Scan of the key only: the import may read nothing else by scanning). */
  scanIds(options?: { signal?: AbortSignal }): Promise<string[]>;
  /** What a report says of channels among `ids`: name, provider, status and source, never the key. */
  getSummaries(ids: readonly string[], options?: { signal?: AbortSignal }): Promise<Map<string, ChannelSummary>>;
}

/** Exact filters the list sends to DynamoDB as a FilterExpression; undefined = no filter. */
export interface ChannelFilter {
  provider?: string;
  name?: string;
  status?: ChannelStatus;
  legacyId?: number;
}

/** The fields an update may change; `settings` is the whole new settings object (the update merged it). */
export type ChannelChanges = Partial<
  Pick<StoredChannel, 'name' | 'baseUrl' | 'models' | 'status' | 'key' | 'settings' | 'statusChangedAt'>
>;

/** The update lost a race: the channel changed (or vanished) after it was read. */
export class ChannelChangedError extends Error {
  constructor(options?: { cause?: unknown }) {
    super('The channel changed after it was read', options);
    this.name = 'ChannelChangedError';
  }
}

/** What the review API needs from channel storage. */
export interface ChannelReviewStore {
  /** One channel by id (a strong read), or undefined. */
  get(id: string): Promise<StoredChannel | undefined>;
  /** Existing channels among `ids`, by id. */
  getMany(ids: readonly string[]): Promise<Map<string, StoredChannel>>;
  /** Every channel passing `filter`, reduced to the list's attributes (plus baseUrl and models with `forKeyword`). */
  scanEntries(
    filter: ChannelFilter,
    options?: { forKeyword?: boolean; forGroup?: boolean },
  ): Promise<ChannelListEntry[]>;
  /**
   * Applies `changes` and sets `updatedAt` and `editedAt` to `at`, provided the channel still has the `updatedAt`
   * it was read with; resolves with the channel after the change. ChannelChangedError when it does not. A change
   * of `status` removes `statusReason` (the relay's reason for an `auto-disabled` no longer holds).
   */
  update(id: string, changes: ChannelChanges, at: string, readUpdatedAt: string | undefined): Promise<StoredChannel>;
  /** Deletes one channel; false when there was none. */
  delete(id: string): Promise<boolean>;
  /** Deletes every channel among `ids` that exists; resolves with how many existed. */
  deleteMany(ids: readonly string[]): Promise<number>;
}

/** A batch write that gave up; `written` items were stored before it did. */
export class ChannelWriteError extends Error {
  constructor(
    readonly written: number,
    options?: { cause?: unknown },
  ) {
    super(`Writing channels failed after ${written} were written`, options);
    this.name = 'ChannelWriteError';
  }
}

export interface ChannelRepositoryOptions extends BatchWriterOptions {
  /** Segments of the list's parallel Scan (default 4). */
  scanSegments?: number;
}

/** Channel storage over the DynamoDB Document client; batch calls only (dynalite supports them). */
export class ChannelRepository extends TableRepository implements ChannelStore, ChannelReviewStore {
  private readonly scanSegments: number;

  constructor(client: DynamoDBDocumentClient, tableName: string, options: ChannelRepositoryOptions = {}) {
    super(client, tableName, options);
    this.scanSegments = options.scanSegments ?? 4;
  }

  private get retry(): BatchRetry {
    return this.writer.retry;
  }

  getCompared(ids: readonly string[], options: { signal?: AbortSignal } = {}): Promise<Map<string, ComparedChannel>> {
    return this.batchGet<ComparedChannel>(ids, options.signal, COMPARED_ATTRIBUTES);
  }

  getMany(ids: readonly string[], options: { signal?: AbortSignal } = {}): Promise<Map<string, StoredChannel>> {
    return this.batchGet<StoredChannel>(ids, options.signal);
  }

  /** Name and provider of the channels among `ids` that exist (the usage report's labels); never a key. */
  getLabels(ids: readonly string[]): Promise<Map<string, ChannelLabel>> {
    return this.batchGet<ChannelLabel>(ids, undefined, LABEL_ATTRIBUTES);
  }

  async isEmpty(options: { signal?: AbortSignal } = {}): Promise<boolean> {
    const out = await this.client.send(
      new ScanCommand({
        TableName: this.tableName,
        Limit: 1,
        // The import's role may Scan only under dynamodb:Select = SPECIFIC_ATTRIBUTES and dynamodb:Attributes = id
        // (infra/stack.ts): Select is sent explicitly so the condition key is present in the request.
        Select: 'SPECIFIC_ATTRIBUTES',
        ProjectionExpression: '#id',
        ExpressionAttributeNames: { '#id': 'id' },
        // An import that another one just finished must not take the table for empty.
        ConsistentRead: true,
      }),
      { abortSignal: options.signal },
    );
    // With no filter, a Scan of Limit 1 returns the first item it evaluates, if there is one.
    return (out.Items?.length ?? 0) === 0;
  }

  async scanIds(options: { signal?: AbortSignal } = {}): Promise<string[]> {
    const ids: string[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const out = await this.client.send(
        new ScanCommand({
          TableName: this.tableName,
          // The only Scan the import's role may send (see isEmpty): the id alone.
          Select: 'SPECIFIC_ATTRIBUTES',
          ProjectionExpression: '#id',
          ExpressionAttributeNames: { '#id': 'id' },
          ConsistentRead: true,
          ExclusiveStartKey: start,
        }),
        { abortSignal: options.signal },
      );
      for (const item of out.Items ?? []) ids.push(String(item.id));
      start = out.LastEvaluatedKey;
    } while (start);
    return ids;
  }

  getSummaries(ids: readonly string[], options: { signal?: AbortSignal } = {}): Promise<Map<string, ChannelSummary>> {
    return this.batchGet<ChannelSummary>(ids, options.signal, ['id', 'name', 'provider', 'status', 'source']);
  }

  /** BatchGetItem of `ids` (duplicates dropped), strongly consistent, with only `attributes` when given. */
  private async batchGet<T extends { id: string }>(
    ids: readonly string[],
    signal: AbortSignal | undefined,
    attributes?: readonly string[],
  ): Promise<Map<string, T>> {
    const found = new Map<string, T>();
    const projection = attributes
      ? {
          ProjectionExpression: attributes.map((_, i) => `#a${i}`).join(', '),
          ExpressionAttributeNames: Object.fromEntries(attributes.map((name, i) => [`#a${i}`, name])),
        }
      : {};
    // BatchGetItem rejects a request that names the same key twice.
    for (const batch of chunks([...new Set(ids)], GET_BATCH)) {
      // Strong reads, so a re-run right after an import classifies what it just wrote.
      const out = await this.retry.getBatch(
        this.client,
        { [this.tableName]: { Keys: batch.map((id) => ({ id })), ConsistentRead: true, ...projection } },
        signal,
      );
      for (const item of out[this.tableName] ?? []) {
        const channel = fromChannelItem<T>(item);
        found.set(channel.id, channel);
      }
    }
    return found;
  }

  async get(id: string): Promise<StoredChannel | undefined> {
    const out = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: { id }, ConsistentRead: true }),
    );
    return out.Item === undefined ? undefined : fromChannelItem<StoredChannel>(out.Item);
  }

  async scanEntries(
    filter: ChannelFilter,
    options: { forKeyword?: boolean; forGroup?: boolean } = {},
  ): Promise<ChannelListEntry[]> {
    // Only the attributes the list filters and orders by travel; the page's channels are read whole afterwards.
    const names: Record<string, string> = { '#id': 'id', '#provider': 'provider', '#name': 'name' };
    const projection = ['#id', '#provider', '#name'];
    if (options.forKeyword) {
      Object.assign(names, { '#baseUrl': 'baseUrl', '#models': 'models' });
      projection.push('#baseUrl', '#models');
    }
    if (options.forGroup) {
      names['#settings'] = 'settings';
      projection.push('#settings');
    }
    const values: Record<string, unknown> = {};
    const conditions: string[] = [];
    const exact = (path: string, value: unknown, placeholder: string) => {
      conditions.push(`${path} = ${placeholder}`);
      values[placeholder] = value;
    };
    if (filter.provider !== undefined) exact('#provider', filter.provider, ':provider');
    if (filter.name !== undefined) exact('#name', filter.name, ':name');
    if (filter.status !== undefined) {
      names['#status'] = 'status';
      exact('#status', filter.status, ':status');
    }
    if (filter.legacyId !== undefined) {
      // `source` is JSON text with `legacyId` first, or a map in a table written before that form.
      Object.assign(names, { '#source': 'source', '#legacyId': 'legacyId' });
      conditions.push('(begins_with(#source, :legacyIdPrefix) OR #source.#legacyId = :legacyId)');
      Object.assign(values, { ':legacyIdPrefix': legacyIdPrefix(filter.legacyId), ':legacyId': filter.legacyId });
    }
    // A parallel Scan: each segment pages on its own, so DynamoDB reads the segments at once (and locally the
    // engine reads one page while this process decodes another).
    const segments = await Promise.all(
      Array.from({ length: this.scanSegments }, async (_, segment) => {
        const entries: ChannelListEntry[] = [];
        let start: Record<string, unknown> | undefined;
        do {
          const out = await this.client.send(
            new ScanCommand({
              TableName: this.tableName,
              ProjectionExpression: projection.join(', '),
              ExpressionAttributeNames: names,
              ...(conditions.length > 0
                ? { FilterExpression: conditions.join(' AND '), ExpressionAttributeValues: values }
                : {}),
              ...(this.scanSegments > 1 ? { Segment: segment, TotalSegments: this.scanSegments } : {}),
              ExclusiveStartKey: start,
            }),
          );
          for (const item of out.Items ?? []) entries.push(fromChannelItem<ChannelListEntry>(item));
          start = out.LastEvaluatedKey;
        } while (start);
        return entries;
      }),
    );
    const entries = segments.flat();
    return entries;
  }

  async update(
    id: string,
    changes: ChannelChanges,
    at: string,
    readUpdatedAt: string | undefined,
  ): Promise<StoredChannel> {
    const fields = {
      ...changes,
      ...(changes.settings !== undefined ? { settings: JSON.stringify(changes.settings) } : {}),
      updatedAt: at,
      editedAt: at,
    };
    const entries = Object.entries(fields).filter(([, value]) => value !== undefined);
    const names: Record<string, string> = { '#id': 'id', '#readUpdatedAt': 'updatedAt' };
    const values: Record<string, unknown> = {};
    if (readUpdatedAt !== undefined) values[':readUpdatedAt'] = readUpdatedAt;
    const unchanged =
      readUpdatedAt === undefined ? 'attribute_not_exists(#readUpdatedAt)' : '#readUpdatedAt = :readUpdatedAt';
    const sets = entries.map(([field, value], i) => {
      names[`#f${i}`] = field;
      values[`:v${i}`] = value;
      return `#f${i} = :v${i}`;
    });
    if (changes.status !== undefined) names['#statusReason'] = 'statusReason';
    const remove = changes.status !== undefined ? ' REMOVE #statusReason' : '';
    try {
      const out = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { id },
          UpdateExpression: `SET ${sets.join(', ')}${remove}`,
          // Optimistic: a write in between (an import, another update, a delete) makes this one fail, not merge.
          ConditionExpression: `attribute_exists(#id) AND ${unchanged}`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
        }),
      );
      return fromChannelItem<StoredChannel>(out.Attributes ?? {});
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) throw new ChannelChangedError({ cause: error });
      throw error;
    }
  }

  async delete(id: string): Promise<boolean> {
    try {
      await this.client.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: { id },
          ConditionExpression: 'attribute_exists(#id)',
          ExpressionAttributeNames: { '#id': 'id' },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  async deleteMany(ids: readonly string[]): Promise<number> {
    const existing = [...(await this.getMany(ids)).keys()];
    await this.writer.writeAll(existing.map((id) => ({ DeleteRequest: { Key: { id } } })));
    return existing.length;
  }

  async putMany(
    items: readonly StoredChannel[],
    options: { signal?: AbortSignal; deletes?: readonly string[] } = {},
  ): Promise<number> {
    let written = 0;
    try {
      const requests = items.map((item) => ({ PutRequest: { Item: toChannelItem(item) as Record<string, unknown> } }));
      await this.writer.writeAll(requests, options.signal, (n) => {
        written += n;
      });
      // Only after every put landed, so a failure never loses a channel (an unkeyed one is moved, not dropped).
      const deletes = (options.deletes ?? []).map((id) => ({ DeleteRequest: { Key: { id } } }));
      if (deletes.length > 0) await this.writer.writeAll(deletes, options.signal);
    } catch (error) {
      throw new ChannelWriteError(written, { cause: error });
    }
    return written;
  }
}
