import {
  InternalServerError,
  ProvisionedThroughputExceededException,
  RequestLimitExceeded,
  ThrottlingException,
} from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  type BatchGetCommandInput,
  BatchWriteCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';

// DynamoDB's per-call limits.
export const GET_BATCH = 100;
export const WRITE_BATCH = 25;

/** What one BatchGetItem call reads: at most 100 keys over every table named. */
export type GetRequests = NonNullable<BatchGetCommandInput['RequestItems']>;

/** One request of a BatchWriteItem call. */
export type WriteRequest =
  | { PutRequest: { Item: Record<string, unknown> } }
  | { DeleteRequest: { Key: Record<string, unknown> } };

export interface BatchRetryOptions {
  /** Attempts per batch, counting the first (default 8). */
  maxAttempts?: number;
  /** First backoff step; doubles per attempt, with full jitter (default 50 ms). */
  baseDelayMs?: number;
  /** Upper bound of one backoff wait (default 2 s). */
  maxDelayMs?: number;
}

/** Retries of batch calls: throttling and transient errors, and items a batch hands back unprocessed. */
export class BatchRetry {
  readonly maxAttempts: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;

  constructor(options: BatchRetryOptions = {}) {
    this.maxAttempts = options.maxAttempts ?? 8;
    this.baseDelayMs = options.baseDelayMs ?? 50;
    this.maxDelayMs = options.maxDelayMs ?? 2_000;
  }

  /** Sends one BatchWriteItem (at most 25 requests) until every request is processed; reports each processed count. */
  async writeBatch(
    client: DynamoDBDocumentClient,
    tableName: string,
    batch: readonly WriteRequest[],
    signal: AbortSignal | undefined,
    onWritten: (count: number) => void,
  ): Promise<void> {
    let requests = [...batch];
    for (let attempt = 1; ; attempt++) {
      const request = new BatchWriteCommand({ RequestItems: { [tableName]: requests } });
      // The signal stops the next attempt, never a call in flight: a BatchWriteItem the table may already have
      // applied is always waited for, so the count of what was written stays exact (an import's deadline report).
      const out = await this.tryOnce(() => client.send(request), attempt, signal);
      if (!out) continue;
      const unprocessed = (out.UnprocessedItems?.[tableName] ?? []) as WriteRequest[];
      onWritten(requests.length - unprocessed.length);
      if (unprocessed.length === 0) return;
      if (attempt >= this.maxAttempts) {
        throw new Error(`BatchWriteItem left ${unprocessed.length} item(s) unprocessed after every retry`);
      }
      requests = unprocessed;
      await this.backoff(attempt, signal);
    }
  }

  /**
   * Sends one BatchGetItem until every key is read; the items found (any order), per table of `requests`. A call that
   * returned items made progress (DynamoDB stops at 16 MB a call, so large items take several calls): only calls that
   * return nothing count as failed attempts.
   */
  async getBatch(
    client: DynamoDBDocumentClient,
    requests: GetRequests,
    signal?: AbortSignal,
  ): Promise<Record<string, Record<string, unknown>[]>> {
    const found: Record<string, Record<string, unknown>[]> = {};
    for (const table of Object.keys(requests)) found[table] = [];
    let pending = requests;
    for (let attempt = 1; ; attempt++) {
      const request = new BatchGetCommand({ RequestItems: pending });
      const out = await this.tryOnce(() => client.send(request, { abortSignal: signal }), attempt, signal);
      if (!out) continue;
      let read = 0;
      for (const [table, items] of Object.entries(out.Responses ?? {})) {
        found[table]?.push(...items);
        read += items.length;
      }
      // The keys left, each table's request otherwise as first sent (projection, consistency).
      const left = Object.entries(out.UnprocessedKeys ?? {}).filter(([, r]) => (r.Keys?.length ?? 0) > 0);
      if (left.length === 0) return found;
      pending = Object.fromEntries(left.map(([table, r]) => [table, { ...requests[table], Keys: r.Keys }]));
      if (read > 0) attempt = 0;
      else {
        if (attempt >= this.maxAttempts) throw new Error('BatchGetItem left keys unprocessed after every retry');
        await this.backoff(attempt, signal);
      }
    }
  }

  /** One call; after a throttling or transient error it waits and resolves undefined, so the caller tries again. */
  async tryOnce<T>(call: () => Promise<T>, attempt: number, signal: AbortSignal | undefined): Promise<T | undefined> {
    signal?.throwIfAborted();
    try {
      return await call();
    } catch (e) {
      if (!isRetryable(e) || attempt >= this.maxAttempts) throw e;
      await this.backoff(attempt, signal);
      return undefined;
    }
  }

  /** Waits a jittered, doubling delay before attempt `attempt + 1`. */
  backoff(attempt: number, signal: AbortSignal | undefined): Promise<void> {
    const cap = Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** (attempt - 1));
    return sleep(Math.random() * cap, signal);
  }
}

export interface BatchWriterOptions extends BatchRetryOptions {
  /** BatchWriteItem calls in flight at once, across every write of the writer (default 4). */
  writeConcurrency?: number;
}

/** The BatchWriteItem side of a repository: its retries, and one bound on the calls in flight for all its writes. */
export class BatchWriter {
  readonly retry: BatchRetry;
  private readonly slots: Slots;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    options: BatchWriterOptions = {},
  ) {
    this.retry = new BatchRetry(options);
    this.slots = new Slots(options.writeConcurrency ?? 4);
  }

  /**
   * Sends every request, 25 per call, each call in one of the writer's slots (so overlapping writes, such as
   * the import queueing one chunk while another is written, share the bound). After the first failure, the
   * calls of this write still waiting for a slot are not sent, and the failure is thrown once the others end.
   */
  async writeAll(
    requests: readonly WriteRequest[],
    signal?: AbortSignal,
    onWritten: (count: number) => void = () => {},
  ): Promise<void> {
    let failure: { error: unknown } | undefined;
    await Promise.all(
      chunks(requests, WRITE_BATCH).map(async (batch) => {
        try {
          await this.slots.run(async () => {
            if (failure !== undefined) return;
            await this.retry.writeBatch(this.client, this.tableName, batch, signal, onWritten);
          }, signal);
        } catch (error) {
          failure ??= { error };
        }
      }),
    );
    if (failure !== undefined) throw failure.error;
  }
}

/** At most `limit` tasks run at once; the others wait in arrival order, or until their signal aborts. */
export class Slots {
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

/** `items` cut into runs of `size`. */
export function chunks<T>(items: readonly T[], size: number): T[][] {
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
