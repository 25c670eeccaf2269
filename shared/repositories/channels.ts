import {
  InternalServerError,
  ProvisionedThroughputExceededException,
  RequestLimitExceeded,
  ThrottlingException,
} from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

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
}

/** What the import needs from channel storage; the DynamoDB repository below is the real one. */
export interface ChannelStore {
  /** Existing channels among `ids`, by id. */
  getMany(ids: readonly string[], options?: { signal?: AbortSignal }): Promise<Map<string, StoredChannel>>;
  /** Writes (creates or replaces) every item; resolves with the number written. */
  putMany(items: readonly StoredChannel[], options?: { signal?: AbortSignal }): Promise<number>;
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
  /** BatchWriteItem calls in flight at once (default 4). */
  writeConcurrency?: number;
}

// DynamoDB's per-call limits.
const GET_BATCH = 100;
const WRITE_BATCH = 25;

type Key = { id: string };
type WriteRequest = { PutRequest: { Item: Record<string, unknown> } };

/** Channel storage over the DynamoDB Document client; batch calls only (dynalite supports them). */
export class ChannelRepository implements ChannelStore {
  private readonly maxAttempts: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly writeConcurrency: number;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    options: ChannelRepositoryOptions = {},
  ) {
    this.maxAttempts = options.maxAttempts ?? 8;
    this.baseDelayMs = options.baseDelayMs ?? 50;
    this.maxDelayMs = options.maxDelayMs ?? 2_000;
    this.writeConcurrency = options.writeConcurrency ?? 4;
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

  async putMany(items: readonly StoredChannel[], options: { signal?: AbortSignal } = {}): Promise<number> {
    const batches = chunks(items, WRITE_BATCH);
    let written = 0;
    let failure: unknown;
    let next = 0;
    // A few workers take batches in turn; after the first failure none takes a new one.
    const worker = async () => {
      while (failure === undefined && next < batches.length) {
        const batch = batches[next++]!;
        try {
          await this.writeBatch(batch, options.signal, (n) => {
            written += n;
          });
        } catch (e) {
          failure ??= e;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.writeConcurrency, batches.length) }, worker));
    if (failure !== undefined) throw new ChannelWriteError(written, { cause: failure });
    return written;
  }

  private async writeBatch(
    batch: readonly StoredChannel[],
    signal: AbortSignal | undefined,
    onWritten: (count: number) => void,
  ): Promise<void> {
    let requests: WriteRequest[] = batch.map((item) => ({ PutRequest: { Item: { ...item } } }));
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
