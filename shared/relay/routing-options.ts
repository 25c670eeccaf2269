import { type DynamoDBDocumentClient, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as z from '../zod.ts';

/*
 * Routing options carried over from the legacy gateway's `options` table (docs/relay.md, "Routing options"): its
 * `RetryTimes` (attempts = RetryTimes + 1) and `AutomaticDisableChannelEnabled`. The token import stores them in one
 * `relayState` item; the relay reads it at most once a minute per instance. Configuration wins: RELAY_MAX_ATTEMPTS, when
 * set, is the attempts whatever was imported.
 */

/** The `relayState` item holding the imported routing options. */
export const ROUTING_OPTIONS_KEY = { pk: 'config', sk: 'routing' } as const;

/** Attempts in all when neither configuration nor an import says otherwise (docs/relay.md, "Failover"). */
export const DEFAULT_MAX_ATTEMPTS = 3;

export const routingOptionsSchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.looseObject({
    /** The family the options were imported from. */
    family: z.optional(z.string()),
    /** Attempts in all per request (the legacy `RetryTimes` + 1). */
    maxAttempts: z.optional(z.int().check(z.minimum(1), z.maximum(10))),
    /** Whether repeated invalid-key failures set a channel `auto-disabled` (the legacy `AutomaticDisableChannelEnabled`). */
    autoDisable: z.optional(z.boolean()),
  }),
);
export type RoutingOptions = z.infer<typeof routingOptionsSchema>;

/** No imported options: the relay's own defaults. */
export const NO_ROUTING_OPTIONS: RoutingOptions = Object.freeze({});

/** Where the relay reads the imported routing options. */
export interface RoutingOptionsSource {
  current(): Promise<RoutingOptions>;
}

/**
 * The imported routing options from `relayState`, read with one Query (the relay's grant on that table, as the ratios
 * are read) and reused for `maxAgeMs`.
 */
export class DynamoRoutingOptionsSource implements RoutingOptionsSource {
  private cached: { at: number; value: RoutingOptions } | undefined;
  private reading: Promise<RoutingOptions> | undefined;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly maxAgeMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  current(): Promise<RoutingOptions> {
    if (this.cached && this.now() - this.cached.at < this.maxAgeMs) return Promise.resolve(this.cached.value);
    // Requests arriving together share one read.
    this.reading ??= this.read().finally(() => {
      this.reading = undefined;
    });
    return this.reading;
  }

  private async read(): Promise<RoutingOptions> {
    const { Items } = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND sk = :sk',
        ExpressionAttributeValues: { ':pk': ROUTING_OPTIONS_KEY.pk, ':sk': ROUTING_OPTIONS_KEY.sk },
      }),
    );
    const parsed = z.safeParse(routingOptionsSchema, Items?.[0] ?? {});
    const value = parsed.success ? parsed.data : NO_ROUTING_OPTIONS;
    this.cached = { at: this.now(), value };
    return value;
  }
}

/** Stores the imported routing options where DynamoRoutingOptionsSource reads them (needs PutItem on `relayState`). */
export class DynamoRoutingOptionsWriter {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async write(options: RoutingOptions): Promise<void> {
    await this.client.send(new PutCommand({ TableName: this.tableName, Item: { ...ROUTING_OPTIONS_KEY, ...options } }));
  }
}

/**
 * The attempts of one request: RELAY_MAX_ATTEMPTS when configured, else the imported RetryTimes + 1, else 3
 * (docs/relay.md, "Routing options").
 */
export function attemptsFor(configured: number | undefined, imported: RoutingOptions): number {
  return Math.max(1, configured ?? imported.maxAttempts ?? DEFAULT_MAX_ATTEMPTS);
}

/**
 * The imported options for one request (cached for a minute per instance: no read on a warm request); the defaults
 * when there is no source or it cannot be read.
 */
export async function currentRoutingOptions(
  source: RoutingOptionsSource | undefined,
  log?: { warn(message: string, fields: Record<string, unknown>): void },
): Promise<RoutingOptions> {
  if (source === undefined) return NO_ROUTING_OPTIONS;
  try {
    return await source.current();
  } catch (error) {
    log?.warn('relay: routing options unreadable; using the defaults', { error: String(error) });
    return NO_ROUTING_OPTIONS;
  }
}
