import type { ChannelSettings } from '../schemas/channel-settings.ts';

/*
 * The relay's contract (docs/relay.md): what the routing core takes and gives, so the `/v1` function, the channel
 * test, the usage API and the knowledge base's training (one routing core, several front doors) agree on one shape.
 * The core knows no HTTP event; its collaborators come in as parameters.
 */

/**
 * The endpoints the relay serves through channels: OpenAI's chat and embeddings, Anthropic's Messages (`messages`) and
 * OpenAI's Responses (`responses`) (docs/relay.md, "Endpoints"), and Jina's and Cohere's rerank (`rerank`), which only
 * the knowledge base's search calls, in process: no `/v1` route serves it (docs/relay.md, "Rerank").
 */
export type RelayEndpoint = 'chat' | 'embeddings' | 'messages' | 'responses' | 'count_tokens' | 'rerank';

/** Every RelayEndpoint, for schemas and checks. */
export const RELAY_ENDPOINTS: readonly RelayEndpoint[] = [
  'chat',
  'embeddings',
  'messages',
  'responses',
  'count_tokens',
  'rerank',
];

/** A channel's status as the relay reads it; `auto-disabled` is set by the relay after repeated authentication failures. */
export type ChannelStatus = 'enabled' | 'disabled' | 'auto-disabled';

/** A channel as the router sees it (a projection of the stored channel). Holds an API key: never log one. */
export interface RelayChannel {
  readonly id: string;
  readonly provider: string;
  readonly name: string;
  readonly baseUrl: string;
  readonly key: string;
  readonly models: readonly string[];
  readonly status: ChannelStatus;
  readonly settings: ChannelSettings;
}

/** Who is calling: what the authorizer put in its context for a relay key (never the key itself). */
export interface RelayCaller {
  readonly keyId: string;
  /** Ordered: the first group that can serve the model is used. */
  readonly groups: readonly string[];
  /** The key's model allow-list; undefined = every model. */
  readonly models?: readonly string[];
}

/** One request to relay: the body is read once and reused for every attempt. */
export interface RelayRequest {
  readonly requestId: string;
  readonly endpoint: RelayEndpoint;
  /** The parsed OpenAI request body (fields the relay does not know are passed on unchanged). */
  readonly body: Readonly<Record<string, unknown>>;
  readonly caller: RelayCaller;
  /** Aborted when the client goes away: the upstream request is aborted too. */
  readonly signal: AbortSignal;
  /** Protocol headers the caller sent that an adapter may pass on (`anthropic-version`, `anthropic-beta`); lower-case. */
  readonly headers?: Readonly<Record<string, string>>;
}

/** What the relay answers: head first, then the body as it arrives (a stream is never buffered). */
export interface RelayResponse {
  readonly status: number;
  /** Lower-case names; always `content-type` and `x-request-id`. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: AsyncIterable<Uint8Array>;
  /** Settles once the body is consumed (or abandoned) and the usage record is written or its write failed (logged). */
  readonly done: Promise<UsageRecord>;
  /**
   * A provider's whole JSON answer, already parsed, for a caller in the same process (the knowledge base's embeddings,
   * rerank and Q&A calls, shared/kb/relay-models.ts) instead of reading `body`: the answer counts as delivered, as if the
   * body had been read to its end. Only on a non-stream upstream answer; either this or `body`, once.
   */
  readonly takeJson?: () => Readonly<Record<string, unknown>>;
}

/** Why an attempt failed, as the failover rules class it (docs/relay.md, "Retries and failover"). */
export type AttemptErrorClass =
  | 'connect'
  | 'timeout'
  | 'rate-limited'
  | 'server'
  | 'auth'
  | 'not-found'
  | 'client'
  | 'refused-address'
  | 'stream-dropped'
  | 'client-gone';

export interface UsageAttempt {
  readonly channelId: string;
  /** The upstream's HTTP status, or 0 when none was received. */
  readonly status: number;
  readonly errorClass?: AttemptErrorClass;
}

/** One usage record per relayed request, written after its response (table `usage`). Never a key or a body. */
export interface UsageRecord {
  readonly requestId: string;
  /** ISO 8601, when the request arrived. */
  readonly time: string;
  readonly keyId: string;
  readonly group: string;
  readonly endpoint: RelayEndpoint;
  readonly requestedModel: string;
  /** The model name sent upstream (after the channel's mapping); undefined when no attempt was made. */
  readonly upstreamModel?: string;
  /** The channel that produced the final answer; undefined when none did. */
  readonly channelId?: string;
  readonly attempts: readonly UsageAttempt[];
  /** The HTTP status the caller received. */
  readonly status: number;
  /** From the upstream's usage; undefined = unknown (never counted as zero). */
  readonly promptTokens?: number;
  readonly completionTokens?: number;
  readonly totalTokens?: number;
  /** Milliseconds from arrival to the first byte of the answer's body. */
  readonly firstByteMs?: number;
  readonly durationMs: number;
  readonly stream: boolean;
  readonly clientGone: boolean;
  /**
   * The request's cost in the source gateway's quota units (docs/relay.md, "Quotas"): the family's formula over the
   * upstream's tokens and the imported ratios; 0 when no usage was reported. Absent on records written before quotas.
   */
  readonly cost?: number;
}

/** Writes usage records; a failed write is logged by the caller, never fails the request. */
export interface UsageSink {
  write(record: UsageRecord): Promise<void>;
}

/** The result of the operator's channel test (`POST /api/channel/{id}/test`). Never the key. */
export interface ChannelTestResult {
  readonly ok: boolean;
  /** The upstream's HTTP status, or 0 when none was received. */
  readonly status: number;
  readonly latencyMs: number;
  readonly model: string;
  /** The upstream's error message (scrubbed of the channel's key and base-URL credentials), when it failed. */
  readonly message?: string;
}
