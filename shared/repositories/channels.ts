import {
  ConditionalCheckFailedException,
  InternalServerError,
  ProvisionedThroughputExceededException,
  RequestLimitExceeded,
  ThrottlingException,
} from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  ScanCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';

/** A channel as stored in the `channels` table (SPEC 3.4). Holds an API key: never log one. */
export interface StoredChannel {
  id: string;
  provider: string;
  legacyType: number;
  name: string;
  baseUrl: string;
  models: string[];
  key: string;
  status: 'enabled' | 'disabled';
  /** Where the channel came from; never credentials. */
  source: { legacyId: number; host: string; database: string };
  createdAt: string;
  updatedAt: string;
  /** Set by the review API's update; an import leaves an edited channel untouched. */
  editedAt?: string;
}

/** What the import needs from channel storage; the DynamoDB repository below is the real one. */
export interface ChannelStore {
  /** Existing channels among `ids`, by id. */
  getMany(ids: readonly string[], options?: { signal?: AbortSignal }): Promise<Map<string, StoredChannel>>;
  /** Writes (creates or replaces) every item; resolves with the number written. */
  putMany(items: readonly StoredChannel[], options?: { signal?: AbortSignal }): Promise<number>;
}

/** What the list needs of a channel to filter and order it (a projection; never the key). */
export interface ChannelListEntry {
  id: string;
  provider: string;
  name: string;
  /** Only read when a keyword filter asks for them. */
  baseUrl?: string;
  models?: string[];
}

/** Exact filters the list sends to DynamoDB as a FilterExpression; undefined = no filter. */
export interface ChannelFilter {
  provider?: string;
  name?: string;
  status?: 'enabled' | 'disabled';
  legacyId?: number;
}

/** The fields an update may change. */
export type ChannelChanges = Partial<Pick<StoredChannel, 'name' | 'baseUrl' | 'models' | 'status' | 'key'>>;

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
  scanEntries(filter: ChannelFilter, options?: { forKeyword?: boolean }): Promise<ChannelListEntry[]>;
  /**
   * Applies `changes` and sets `updatedAt` and `editedAt` to `at`, provided the channel still has the `updatedAt`
   * it was read with; resolves with the channel after the change. ChannelChangedError when it does not.
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

export interface ChannelRepositoryOptions {
  /** Attempts per batch, counting the first (default 8). */
  maxAttempts?: number;
  /** First backoff step; doubles per attempt, with full jitter (default 50 ms). */
  baseDelayMs?: number;
  /** Upper bound of one backoff wait (default 2 s). */
  maxDelayMs?: number;
  /** BatchWriteItem calls in flight at once, across all of this repository's putMany calls (default 4). */
  writeConcurrency?: number;
}

// DynamoDB's per-call limits.
const GET_BATCH = 100;
const WRITE_BATCH = 25;

type Key = { id: string };
type WriteRequest = { PutRequest: { Item: Record<string, unknown> } } | { DeleteRequest: { Key: Key } };

/** Channel storage over the DynamoDB Document client; batch calls only (dynalite supports them). */
export class ChannelRepository implements ChannelStore, ChannelReviewStore {
  private readonly maxAttempts: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly writeSlots: Slots;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    options: ChannelRepositoryOptions = {},
  ) {
    this.maxAttempts = options.maxAttempts ?? 8;
    this.baseDelayMs = options.baseDelayMs ?? 50;
    this.maxDelayMs = options.maxDelayMs ?? 2_000;
    this.writeSlots = new Slots(options.writeConcurrency ?? 4);
  }

  async getMany(ids: readonly string[], options: { signal?: AbortSignal } = {}): Promise<Map<string, StoredChannel>> {
    const { signal } = options;
    const found = new Map<string, StoredChannel>();
    // BatchGetItem rejects a request that names the same key twice.
    for (const batch of chunks([...new Set(ids)], GET_BATCH)) {
      let keys: Key[] = batch.map((id) => ({ id }));
      for (let attempt = 1; keys.length > 0; attempt++) {
        const request = new BatchGetCommand({
          // Strong reads, so a re-run right after an import classifies what it just wrote.
          RequestItems: { [this.tableName]: { Keys: keys, ConsistentRead: true } },
        });
        const out = await this.tryOnce(() => this.client.send(request, { abortSignal: signal }), attempt, signal);
        if (!out) continue;
        for (const item of out.Responses?.[this.tableName] ?? []) {
          const channel = item as StoredChannel;
          found.set(channel.id, channel);
        }
        keys = (out.UnprocessedKeys?.[this.tableName]?.Keys ?? []) as Key[];
        if (keys.length > 0) {
          if (attempt >= this.maxAttempts) throw new Error('BatchGetItem left keys unprocessed after every retry');
          await this.backoff(attempt, signal);
        }
      }
    }
    return found;
  }

  async get(id: string): Promise<StoredChannel | undefined> {
    const out = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: { id }, ConsistentRead: true }),
    );
    return out.Item as StoredChannel | undefined;
  }

  async scanEntries(filter: ChannelFilter, options: { forKeyword?: boolean } = {}): Promise<ChannelListEntry[]> {
    // Only the attributes the list filters and orders by travel; the page's channels are read whole afterwards.
    const names: Record<string, string> = { '#id': 'id', '#provider': 'provider', '#name': 'name' };
    const projection = ['#id', '#provider', '#name'];
    if (options.forKeyword) {
      Object.assign(names, { '#baseUrl': 'baseUrl', '#models': 'models' });
      projection.push('#baseUrl', '#models');
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
      Object.assign(names, { '#source': 'source', '#legacyId': 'legacyId' });
      exact('#source.#legacyId', filter.legacyId, ':legacyId');
    }
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
          ExclusiveStartKey: start,
        }),
      );
      for (const item of out.Items ?? []) entries.push(item as ChannelListEntry);
      start = out.LastEvaluatedKey;
    } while (start);
    return entries;
  }

  async update(
    id: string,
    changes: ChannelChanges,
    at: string,
    readUpdatedAt: string | undefined,
  ): Promise<StoredChannel> {
    const fields = { ...changes, updatedAt: at, editedAt: at };
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
    try {
      const out = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { id },
          UpdateExpression: `SET ${sets.join(', ')}`,
          // Optimistic: a write in between (an import, another update, a delete) makes this one fail, not merge.
          ConditionExpression: `attribute_exists(#id) AND ${unchanged}`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
        }),
      );
      return out.Attributes as StoredChannel;
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
    for (const batch of chunks(existing, WRITE_BATCH)) {
      await this.writeBatch(
        batch.map((id) => ({ DeleteRequest: { Key: { id } } })),
        undefined,
        () => {},
      );
    }
    return existing.length;
  }

  async putMany(items: readonly StoredChannel[], options: { signal?: AbortSignal } = {}): Promise<number> {
    const { signal } = options;
    let written = 0;
    let failure: { error: unknown } | undefined;
    // Each batch waits for one of the repository's write slots, so callers that overlap putMany calls (the
    // import queues one chunk while another is written) never put more than writeConcurrency calls in flight.
    await Promise.all(
      chunks(items, WRITE_BATCH).map(async (batch) => {
        try {
          await this.writeSlots.run(async () => {
            // After this call's first failure, its batches still waiting for a slot are not sent.
            if (failure !== undefined) return;
            await this.writeBatch(
              batch.map((item) => ({ PutRequest: { Item: { ...item } } })),
              signal,
              (n) => {
                written += n;
              },
            );
          }, signal);
        } catch (error) {
          failure ??= { error };
        }
      }),
    );
    if (failure !== undefined) throw new ChannelWriteError(written, { cause: failure.error });
    return written;
  }

  private async writeBatch(
    batch: readonly WriteRequest[],
    signal: AbortSignal | undefined,
    onWritten: (count: number) => void,
  ): Promise<void> {
    let requests: WriteRequest[] = [...batch];
    for (let attempt = 1; ; attempt++) {
      const request = new BatchWriteCommand({ RequestItems: { [this.tableName]: requests } });
      const out = await this.tryOnce(() => this.client.send(request, { abortSignal: signal }), attempt, signal);
      if (!out) continue;
      const unprocessed = (out.UnprocessedItems?.[this.tableName] ?? []) as WriteRequest[];
      onWritten(requests.length - unprocessed.length);
      if (unprocessed.length === 0) return;
      if (attempt >= this.maxAttempts) {
        throw new Error(`BatchWriteItem left ${unprocessed.length} item(s) unprocessed after every retry`);
      }
      requests = unprocessed;
      await this.backoff(attempt, signal);
    }
  }

  /** One call; after a throttling or transient error it waits and resolves undefined, so the caller tries again. */
  private async tryOnce<T>(
    call: () => Promise<T>,
    attempt: number,
    signal: AbortSignal | undefined,
  ): Promise<T | undefined> {
    signal?.throwIfAborted();
    try {
      return await call();
    } catch (e) {
      if (!isRetryable(e) || attempt >= this.maxAttempts) throw e;
      await this.backoff(attempt, signal);
      return undefined;
    }
  }

  private backoff(attempt: number, signal: AbortSignal | undefined): Promise<void> {
    const cap = Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** (attempt - 1));
    return sleep(Math.random() * cap, signal);
  }
}

/** At most `limit` tasks run at once; the others wait in arrival order, or until their signal aborts. */
class Slots {
  private free: number;
  // Insertion-ordered, so the first entry is the longest waiter; an aborted waiter leaves from anywhere.
  private readonly waiting = new Set<() => void>();

  constructor(limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError('writeConcurrency must be a positive integer');
    this.free = limit;
  }

  async run<T>(task: () => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
    await this.acquire(signal);
    try {
      return await task();
    } finally {
      this.release();
    }
  }

  private async acquire(signal: AbortSignal | undefined): Promise<void> {
    signal?.throwIfAborted();
    if (this.free > 0) {
      this.free -= 1;
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        this.waiting.delete(grant);
        reject(signal?.reason);
      };
      const grant = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      this.waiting.add(grant);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  private release(): void {
    // The slot passes straight to the longest waiter, so a newcomer cannot overtake the queue.
    const [next] = this.waiting;
    if (next === undefined) {
      this.free += 1;
      return;
    }
    this.waiting.delete(next);
    next();
  }
}

function isRetryable(e: unknown): boolean {
  return (
    e instanceof ProvisionedThroughputExceededException ||
    e instanceof ThrottlingException ||
    e instanceof RequestLimitExceeded ||
    e instanceof InternalServerError
  );
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
