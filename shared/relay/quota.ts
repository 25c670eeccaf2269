import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { RELAY_KEYS_BY_ID } from '../tables.ts';
import * as z from '../zod.ts';
import type { RelayEndpoint, UsageRecord, UsageSink } from './contract.ts';

/*
 * Quotas as the legacy gateway enforced them (docs/relay.md, "Quotas"; One API's model/token.go, middleware/auth.go and
 * relay/controller/helper.go). A key with a limited quota is admitted while its remaining quota is positive; each
 * admitted request first reserves an estimate of its cost with one conditional UpdateItem (ADD) on the key's record, and
 * once its usage record is known the reservation is settled to the exact cost with one more ADD. Reservations are
 * taken only while the remainder is positive and are never smaller than the cost they stand for, so requests racing
 * for the last units overspend by less than one reservation. Unlimited keys never touch the table.
 */

/** One API's message for a token whose remaining quota is not positive (model/token.go, ValidateUserToken). */
export const QUOTA_EXHAUSTED_MESSAGE = '该令牌额度已用尽';

/** One API's `PreConsumedQuota` (common/config): tokens reserved for a request's answer when it names no max_tokens. */
export const PRE_CONSUMED_TOKENS = 500;

/** One API's ratio for a model missing from its tables (relay/billing/ratio: GetModelRatio logs and returns 30). */
export const ONE_API_UNKNOWN_MODEL_RATIO = 30;

/**
 * The price ratios imported from the legacy gateway's `options` (ModelRatio, CompletionRatio, GroupRatio). Built on its
 * first parse (`z.lazy`): only a request from a key with a limited quota reads the ratios.
 */
export const ratioConfigSchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.lazy(() =>
    z.looseObject({
      family: z.optional(z.string()),
      modelRatio: z._default(z.record(z.string(), z.number()), {}),
      completionRatio: z._default(z.record(z.string(), z.number()), {}),
      groupRatio: z._default(z.record(z.string(), z.number()), {}),
    }),
  ),
);
export type RatioConfig = z.infer<typeof ratioConfigSchema>;

/** No imported ratios: every model at One API's unknown-model ratio, completions at 1, every group at 1. */
export const EMPTY_RATIOS: RatioConfig = { modelRatio: {}, completionRatio: {}, groupRatio: {} };

/** The ratios of a request: the model's, its completions', and the group's. */
export function ratiosFor(config: RatioConfig, model: string, group: string) {
  return {
    modelRatio: config.modelRatio[model] ?? ONE_API_UNKNOWN_MODEL_RATIO,
    completionRatio: config.completionRatio[model] ?? 1,
    groupRatio: config.groupRatio[group] ?? 1,
  };
}

/**
 * One API's cost of a request (relay/controller/helper.go, postConsumeQuota): ceil((prompt + completion × completion
 * ratio) × model ratio × group ratio), at least 1 when the ratio is not 0, and 0 when no token was counted.
 */
export function requestCost(
  tokens: { promptTokens?: number; completionTokens?: number },
  ratios: ReturnType<typeof ratiosFor>,
): number {
  const prompt = tokens.promptTokens ?? 0;
  const completion = tokens.completionTokens ?? 0;
  if (prompt + completion === 0) return 0;
  const ratio = ratios.modelRatio * ratios.groupRatio;
  const cost = Math.ceil((prompt + completion * ratios.completionRatio) * ratio);
  return ratio !== 0 && cost <= 0 ? 1 : cost;
}

/**
 * What a request reserves before it is sent: One API's pre-consumption (PreConsumedQuota + prompt + max_tokens, times
 * the ratio) with the prompt estimated from the body's size (a token is at least one byte, so the body's bytes bound
 * it) and the completion priced at its ratio, so the reservation covers the cost of any answer within max_tokens.
 */
export function reservationFor(
  body: Readonly<Record<string, unknown>>,
  bodyBytes: number,
  ratios: ReturnType<typeof ratiosFor>,
): number {
  const limit = [body.max_completion_tokens, body.max_tokens].find(
    (v): v is number => typeof v === 'number' && Number.isFinite(v) && v > 0,
  );
  const completion = Math.max(PRE_CONSUMED_TOKENS, limit ?? 0);
  return Math.max(
    1,
    Math.ceil((bodyBytes + completion * ratios.completionRatio) * ratios.modelRatio * ratios.groupRatio),
  );
}

/** The quota calls on the relay keys table (Query on `byId`, UpdateItem). */
export interface QuotaStore {
  /**
   * Reserves `amount` when the key's remaining quota is positive (`reserved`); `exhausted` when it is not; `unindexed`
   * when the key is not yet in the `byId` index (a key created or imported a moment ago: the index is eventually
   * consistent), so nothing could be reserved.
   */
  reserve(keyId: string, amount: number): Promise<'reserved' | 'exhausted' | 'unindexed'>;
  /** Adds `delta` back to the remaining quota and takes it from the used quota (negative: charges more). */
  settle(keyId: string, delta: number): Promise<void>;
}

/** Where the ratios come from: the `relayState` item `pk = "config"`, `sk = "ratios"` (written by the token import). */
export interface RatioSource {
  ratios(): Promise<RatioConfig>;
}

/** The quota calls on DynamoDB: the key's hash found once per instance by id (it never changes), then ADDs. */
export class DynamoQuotaStore implements QuotaStore {
  private readonly hashes = new Map<string, string>();

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  private async keyHash(keyId: string): Promise<string | undefined> {
    const known = this.hashes.get(keyId);
    if (known) return known;
    const { Items } = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: RELAY_KEYS_BY_ID.name,
        KeyConditionExpression: '#id = :id',
        ExpressionAttributeNames: { '#id': 'id' },
        ExpressionAttributeValues: { ':id': keyId },
      }),
    );
    const hash = Items?.[0]?.keyHash;
    if (typeof hash !== 'string') return undefined;
    if (this.hashes.size > 10_000) this.hashes.clear();
    this.hashes.set(keyId, hash);
    return hash;
  }

  async reserve(keyId: string, amount: number): Promise<'reserved' | 'exhausted' | 'unindexed'> {
    const keyHash = await this.keyHash(keyId);
    if (keyHash === undefined) return 'unindexed';
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { keyHash },
          UpdateExpression: 'ADD remainQuota :minus, usedQuota :plus',
          // Only a limited key with quota left: the check and the subtraction are one atomic write.
          ConditionExpression: '#id = :id AND unlimitedQuota = :false AND remainQuota > :zero',
          ExpressionAttributeNames: { '#id': 'id' },
          ExpressionAttributeValues: { ':id': keyId, ':false': false, ':zero': 0, ':minus': -amount, ':plus': amount },
        }),
      );
      return 'reserved';
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
    return 'exhausted';
  }

  async settle(keyId: string, delta: number): Promise<void> {
    if (delta === 0) return;
    const keyHash = await this.keyHash(keyId);
    if (keyHash === undefined) return;
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { keyHash },
          UpdateExpression: 'ADD remainQuota :delta, usedQuota :minus',
          ConditionExpression: 'attribute_exists(keyHash)',
          ExpressionAttributeValues: { ':delta': delta, ':minus': -delta },
        }),
      );
    } catch (error) {
      // Deleted meanwhile: nothing left to settle.
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }
}

/** The imported ratios from `relayState`, read with one Query and reused for `maxAgeMs`. */
export class DynamoRatioSource implements RatioSource {
  private cached: { at: number; value: RatioConfig } | undefined;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly maxAgeMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  async ratios(): Promise<RatioConfig> {
    if (this.cached && this.now() - this.cached.at < this.maxAgeMs) return this.cached.value;
    const { Items } = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND sk = :sk',
        ExpressionAttributeValues: { ':pk': RATIOS_KEY.pk, ':sk': RATIOS_KEY.sk },
      }),
    );
    const parsed = z.safeParse(ratioConfigSchema, Items?.[0] ?? {});
    const value = parsed.success ? parsed.data : EMPTY_RATIOS;
    this.cached = { at: this.now(), value };
    return value;
  }
}

/** Stores the imported ratios where DynamoRatioSource reads them (the token import; needs PutItem on `relayState`). */
export class DynamoRatioWriter {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async write(config: RatioConfig): Promise<void> {
    await this.client.send(new PutCommand({ TableName: this.tableName, Item: { ...RATIOS_KEY, ...config } }));
  }
}

/** The `relayState` item holding the imported ratios. */
export const RATIOS_KEY = { pk: 'config', sk: 'ratios' } as const;

/** A request admitted against its key's quota: what it reserved, settled when its usage record is written. */
interface Reservation {
  readonly keyId: string;
  readonly amount: number;
}

/** Thrown when a limited key's remaining quota is not positive: the front door answers 429. */
export class QuotaExhaustedError extends Error {}

/**
 * Admission and metering around the routing core: `admit` before the request is relayed, and a usage sink that prices
 * each record, settles its reservation and writes the record with its cost.
 */
export class QuotaMeter {
  private readonly open = new Map<string, Reservation>();

  constructor(
    private readonly store: QuotaStore,
    private readonly ratios: RatioSource,
    private readonly onError: (message: string, error: unknown) => void = () => {},
  ) {}

  /**
   * Reserves the request's estimated cost for a limited key (throws QuotaExhaustedError when none is left); does nothing
   * for an unlimited key. The group is the key's first (the cost is settled with the group that served it).
   */
  async admit(request: {
    requestId: string;
    keyId: string;
    limitedQuota: boolean;
    group: string;
    model: string;
    body: Readonly<Record<string, unknown>>;
    bodyBytes: number;
    endpoint: RelayEndpoint;
  }): Promise<void> {
    if (!request.limitedQuota) return;
    const ratios = ratiosFor(await this.ratios.ratios(), request.model, request.group);
    const amount = reservationFor(request.body, request.bodyBytes, ratios);
    const outcome = await this.store.reserve(request.keyId, amount);
    if (outcome === 'exhausted') throw new QuotaExhaustedError(QUOTA_EXHAUSTED_MESSAGE);
    // The authorizer found the key, so it exists: a key not yet indexed by id is admitted with nothing reserved, and its
    // cost is still charged once the record is written (by then the index holds it).
    this.open.set(request.requestId, { keyId: request.keyId, amount: outcome === 'reserved' ? amount : 0 });
  }

  /** Gives a reservation back whole (the request failed before the core took it). */
  async release(requestId: string): Promise<void> {
    const reservation = this.open.get(requestId);
    if (!reservation) return;
    this.open.delete(requestId);
    await this.store.settle(reservation.keyId, reservation.amount);
  }

  /** The usage sink that prices each record, settles its reservation, then writes it through `inner`. */
  sink(inner: UsageSink): UsageSink {
    return {
      write: async (record: UsageRecord) => {
        let cost = 0;
        try {
          const config = await this.ratios.ratios();
          cost = requestCost(record, ratiosFor(config, record.requestedModel, record.group));
        } catch (error) {
          this.onError('relay: ratios unreadable, cost 0', error);
        }
        const reservation = this.open.get(record.requestId);
        if (reservation) {
          this.open.delete(record.requestId);
          try {
            await this.store.settle(reservation.keyId, reservation.amount - cost);
          } catch (error) {
            this.onError('relay: quota settlement failed', error);
          }
        }
        await inner.write({ ...record, cost });
      },
    };
  }
}
