import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, type DynamoDBDocumentClient, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { AttemptErrorClass } from './contract.ts';

/*
 * Channel health shared by every function instance (docs/relay.md, "Health"). Table `relayState`, ONE partition
 * `pk = "health"`, one item per channel that failed recently (`sk` = channel id), so one Query reads all of it; the
 * Query is cached for `cacheMs` (1 s). Policy: K retried failures in a row start a cool-down of 60 s, doubling with
 * each further failure up to 15 min; the first success deletes the item. K invalid-key 401s in a row set the channel
 * `auto-disabled` (a conditional UpdateItem on the channels table: only while it is still enabled). Writes are
 * single UpdateItem / DeleteItem calls that the relay never awaits before answering.
 */

export const HEALTH_PARTITION = 'health';

export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
}

/** One channel's recent failures. */
export interface ChannelHealth {
  readonly channelId: string;
  readonly failures: number;
  readonly authFailures: number;
  /** Epoch ms; 0 = not cooling down. */
  readonly coolDownUntil: number;
  readonly lastErrorClass?: string;
  readonly updatedAt?: string;
}

/** All health at one moment. */
export interface HealthView {
  get(channelId: string): ChannelHealth | undefined;
  isCoolingDown(channelId: string, nowMs: number): boolean;
}

export interface FailureReport {
  readonly channelId: string;
  readonly errorClass: AttemptErrorClass;
  /** A 401 whose body says the key is invalid. */
  readonly invalidKey: boolean;
}

export interface HealthStore {
  /** The current view: at most one Query per `cacheMs`. */
  view(): Promise<HealthView>;
  recordFailure(report: FailureReport): Promise<void>;
  recordSuccess(channelId: string): Promise<void>;
}

export interface HealthPolicy {
  /** Failures in a row before a cool-down, and invalid-key failures in a row before auto-disable (default 3). */
  readonly threshold: number;
  readonly baseCoolDownMs: number;
  readonly maxCoolDownMs: number;
}

export const DEFAULT_HEALTH_POLICY: HealthPolicy = { threshold: 3, baseCoolDownMs: 60_000, maxCoolDownMs: 15 * 60_000 };

/** The cool-down after `failures` failures in a row: none below K, then 60 s doubling per failure up to 15 min. */
export function coolDownMs(failures: number, policy: HealthPolicy = DEFAULT_HEALTH_POLICY): number {
  if (failures < policy.threshold) return 0;
  const doublings = Math.min(failures - policy.threshold, 20);
  return Math.min(policy.baseCoolDownMs * 2 ** doublings, policy.maxCoolDownMs);
}

class MapView implements HealthView {
  constructor(private readonly items: ReadonlyMap<string, ChannelHealth>) {}
  get(channelId: string): ChannelHealth | undefined {
    return this.items.get(channelId);
  }
  isCoolingDown(channelId: string, nowMs: number): boolean {
    const item = this.items.get(channelId);
    return item !== undefined && item.coolDownUntil > nowMs;
  }
}

export const EMPTY_HEALTH: HealthView = new MapView(new Map());

export interface DynamoHealthStoreOptions {
  readonly client: DynamoDBDocumentClient;
  /** Physical name of the `relayState` table. */
  readonly tableName: string;
  /** Physical name of the `channels` table (auto-disable). */
  readonly channelsTableName: string;
  readonly clock: Clock;
  readonly policy?: Partial<HealthPolicy>;
  /** How long a health Query is reused (default 1000 ms). */
  readonly cacheMs?: number;
  /** Told about a failure the store absorbs (an auto-disable write that failed); the failure count was written. */
  readonly onError?: (message: string, error: unknown) => void;
}

function decode(item: Record<string, unknown>): ChannelHealth {
  return {
    channelId: String(item.sk),
    failures: Number(item.failures ?? 0),
    authFailures: Number(item.authFailures ?? 0),
    coolDownUntil: Number(item.coolDownUntil ?? 0),
    ...(typeof item.lastErrorClass === 'string' ? { lastErrorClass: item.lastErrorClass } : {}),
    ...(typeof item.updatedAt === 'string' ? { updatedAt: item.updatedAt } : {}),
  };
}

/** Health on DynamoDB (dynalite-compatible: Query, UpdateItem, DeleteItem only). */
export class DynamoHealthStore implements HealthStore {
  private readonly policy: HealthPolicy;
  private readonly cacheMs: number;
  private cached: { at: number; items: Map<string, ChannelHealth> } | undefined;
  private inFlight: Promise<HealthView> | undefined;

  constructor(private readonly options: DynamoHealthStoreOptions) {
    this.policy = { ...DEFAULT_HEALTH_POLICY, ...options.policy };
    this.cacheMs = options.cacheMs ?? 1000;
  }

  view(): Promise<HealthView> {
    const now = this.options.clock.now();
    if (this.cached && now - this.cached.at < this.cacheMs) return Promise.resolve(new MapView(this.cached.items));
    this.inFlight ??= this.query(now).finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  private async query(now: number): Promise<HealthView> {
    const items = new Map<string, ChannelHealth>();
    let start: Record<string, unknown> | undefined;
    do {
      const out = await this.options.client.send(
        new QueryCommand({
          TableName: this.options.tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': HEALTH_PARTITION },
          ExclusiveStartKey: start,
        }),
      );
      for (const item of out.Items ?? []) {
        const health = decode(item);
        items.set(health.channelId, health);
      }
      start = out.LastEvaluatedKey;
    } while (start);
    this.cached = { at: now, items };
    return new MapView(items);
  }

  async recordFailure(report: FailureReport): Promise<void> {
    const now = this.options.clock.now();
    const out = await this.options.client.send(
      new UpdateCommand({
        TableName: this.options.tableName,
        Key: { pk: HEALTH_PARTITION, sk: report.channelId },
        UpdateExpression: report.invalidKey
          ? 'ADD failures :one, authFailures :one SET lastErrorClass = :class, updatedAt = :now'
          : 'ADD failures :one SET authFailures = :zero, lastErrorClass = :class, updatedAt = :now',
        ExpressionAttributeValues: {
          ':one': 1,
          ':class': report.errorClass,
          ':now': new Date(now).toISOString(),
          ...(report.invalidKey ? {} : { ':zero': 0 }),
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    let health = decode(out.Attributes ?? { sk: report.channelId });
    const coolDown = coolDownMs(health.failures, this.policy);
    if (coolDown > 0) {
      const until = now + coolDown;
      await this.options.client.send(
        new UpdateCommand({
          TableName: this.options.tableName,
          Key: { pk: HEALTH_PARTITION, sk: report.channelId },
          UpdateExpression: 'SET coolDownUntil = :until',
          ExpressionAttributeValues: { ':until': until },
        }),
      );
      health = { ...health, coolDownUntil: until };
    }
    this.cached?.items.set(report.channelId, health);
    if (health.authFailures >= this.policy.threshold) await this.autoDisable(report.channelId, now);
  }

  private async autoDisable(channelId: string, now: number): Promise<void> {
    try {
      await this.options.client.send(
        new UpdateCommand({
          TableName: this.options.channelsTableName,
          Key: { id: channelId },
          UpdateExpression: 'SET #status = :auto, statusReason = :reason, statusChangedAt = :now',
          ConditionExpression: '#status = :enabled',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':auto': 'auto-disabled',
            ':enabled': 'enabled',
            ':reason': `the upstream rejected the channel's key as invalid ${this.policy.threshold} times in a row`,
            ':now': new Date(now).toISOString(),
          },
        }),
      );
    } catch (error) {
      // Already disabled (by an operator or another instance), or deleted: nothing to do.
      if (error instanceof ConditionalCheckFailedException) return;
      // The next invalid-key failure tries again.
      this.options.onError?.('relay: auto-disable failed', error);
    }
  }

  async recordSuccess(channelId: string): Promise<void> {
    await this.options.client.send(
      new DeleteCommand({ TableName: this.options.tableName, Key: { pk: HEALTH_PARTITION, sk: channelId } }),
    );
    this.cached?.items.delete(channelId);
  }
}

/** Health kept in memory (tests, and a core without DynamoDB). Same policy. */
export class MemoryHealthStore implements HealthStore {
  readonly items = new Map<string, ChannelHealth>();
  readonly autoDisabled = new Set<string>();
  private readonly policy: HealthPolicy;

  constructor(
    private readonly clock: Clock,
    policy: Partial<HealthPolicy> = {},
  ) {
    this.policy = { ...DEFAULT_HEALTH_POLICY, ...policy };
  }

  async view(): Promise<HealthView> {
    return new MapView(new Map(this.items));
  }

  async recordFailure(report: FailureReport): Promise<void> {
    const now = this.clock.now();
    const before = this.items.get(report.channelId);
    const failures = (before?.failures ?? 0) + 1;
    const authFailures = report.invalidKey ? (before?.authFailures ?? 0) + 1 : 0;
    const coolDown = coolDownMs(failures, this.policy);
    this.items.set(report.channelId, {
      channelId: report.channelId,
      failures,
      authFailures,
      coolDownUntil: coolDown > 0 ? now + coolDown : (before?.coolDownUntil ?? 0),
      lastErrorClass: report.errorClass,
      updatedAt: new Date(now).toISOString(),
    });
    if (authFailures >= this.policy.threshold) this.autoDisabled.add(report.channelId);
  }

  async recordSuccess(channelId: string): Promise<void> {
    this.items.delete(channelId);
  }
}
