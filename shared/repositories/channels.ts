import { BatchGetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { BatchRetry, type BatchRetryOptions, chunks, GET_BATCH, Slots, WRITE_BATCH } from './batch.ts';

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

export interface ChannelRepositoryOptions extends BatchRetryOptions {
  /** BatchWriteItem calls in flight at once, across all of this repository's putMany calls (default 4). */
  writeConcurrency?: number;
}

type Key = { id: string };

/** Channel storage over the DynamoDB Document client; batch calls only (dynalite supports them). */
export class ChannelRepository implements ChannelStore {
  private readonly retry: BatchRetry;
  private readonly writeSlots: Slots;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    options: ChannelRepositoryOptions = {},
  ) {
    this.retry = new BatchRetry(options);
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
        const out = await this.retry.tryOnce(() => this.client.send(request, { abortSignal: signal }), attempt, signal);
        if (!out) continue;
        for (const item of out.Responses?.[this.tableName] ?? []) {
          const channel = item as StoredChannel;
          found.set(channel.id, channel);
        }
        keys = (out.UnprocessedKeys?.[this.tableName]?.Keys ?? []) as Key[];
        if (keys.length > 0) {
          if (attempt >= this.retry.maxAttempts)
            throw new Error('BatchGetItem left keys unprocessed after every retry');
          await this.retry.backoff(attempt, signal);
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
            const requests = batch.map((item) => ({ PutRequest: { Item: { ...item } } }));
            await this.retry.writeBatch(this.client, this.tableName, requests, signal, (n) => {
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
}
