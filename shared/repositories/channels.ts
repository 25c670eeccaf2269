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
  /** BatchWriteItem calls in flight at once, across all of this repository's putMany calls (default 4). */
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
            await this.writeBatch(batch, signal, (n) => {
              written += n;
            });
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
