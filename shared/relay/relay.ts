import type { IncomingMessage } from 'node:http';
import type { AllowList } from '../allow-list.ts';
import type { ChannelSource } from './channel-source.ts';
import type {
  AttemptErrorClass,
  ChannelTestResult,
  RelayCaller,
  RelayChannel,
  RelayEndpoint,
  RelayRequest,
  RelayResponse,
  UsageAttempt,
  UsageRecord,
  UsageSink,
} from './contract.ts';
import { type Clock, EMPTY_HEALTH, type HealthStore, type HealthView } from './health.ts';
import {
  createOutbound,
  FirstByteTimeoutError,
  type Outbound,
  type OutboundOptions,
  RefusedAddressError,
  readBounded,
} from './outbound.ts';
import { UpstreamStreamError } from './providers/anthropic.ts';
import { endpointAdapter } from './providers/endpoints.ts';
import { adapterFor } from './providers/index.ts';
import type { ProviderAdapter, TokenPost } from './providers/types.ts';
import { ChannelPicker, type NoChannelReason, noCandidateReason, resolveGroup, upstreamModel } from './routing.ts';
import { parseSse, sseData } from './sse.ts';

/*
 * The attempt loop (docs/relay.md, "Failover"): one routing core for every front door. It knows no HTTP event; the
 * `/v1` handler, the channel test and the knowledge base's training call it with a RelayRequest.
 */

/**
 * What the core logs through; a Powertools Logger (shared/logger.ts) fits as it is. The core passes fields only:
 * never a key, a body or an upstream's raw error text.
 */
export interface RelayLogger {
  warn(message: string, ...fields: Record<string, unknown>[]): void;
  error(message: string, ...fields: Record<string, unknown>[]): void;
}

export interface RelayDeps {
  readonly channels: ChannelSource;
  readonly health: HealthStore;
  readonly usage: UsageSink;
  readonly clock: Clock;
  /** A number in [0, 1). */
  readonly random: () => number;
  /** Attempts in all, across channels (RELAY_MAX_ATTEMPTS, default 3). */
  readonly maxAttempts?: number;
  /** RELAY_ALLOWED_HOSTS: hosts and networks a loopback base URL may reach. */
  readonly allowedHosts: AllowList;
  /** Milliseconds until an upstream's response head must arrive (default 60 s). */
  readonly firstByteTimeoutMs?: number;
  readonly logger?: RelayLogger;
  /** Tests resolve host names to chosen addresses with this. */
  readonly resolve?: OutboundOptions['resolve'];
  /** The outbound HTTP client; default one built from allowedHosts, firstByteTimeoutMs and resolve. */
  readonly outbound?: Outbound;
}

export interface Relay {
  handle(request: RelayRequest): Promise<RelayResponse>;
  listModels(caller: RelayCaller): Promise<string[]>;
  testChannel(channel: RelayChannel): Promise<ChannelTestResult>;
  /** Closes the keep-alive connections. */
  close(): void;
}

/** The upstream statuses retried on another channel; 400, 413, 422 and other 4xx are returned as they are. */
export function classifyStatus(status: number): AttemptErrorClass {
  if (status === 429) return 'rate-limited';
  if (status === 401 || status === 403) return 'auth';
  if (status === 404) return 'not-found';
  if (status >= 500) return 'server';
  return 'client';
}

export const isRetried = (errorClass: AttemptErrorClass): boolean =>
  errorClass !== 'client' && errorClass !== 'client-gone';

const INVALID_KEY =
  /invalid_api_key|incorrect api key|invalid x-api-key|invalid.{0,16}(api[ _-]?key|subscription key)|authentication_error/i;

/** A 401 whose body says the key is invalid (OpenAI's `invalid_api_key`, Anthropic's `authentication_error`, Azure's). */
export function isInvalidKey(status: number, body: string): boolean {
  return status === 401 && INVALID_KEY.test(body);
}

/** Removes the channel's key, its base URL's credentials and credential override headers from text. */
export function scrub(text: string, channel: RelayChannel): string {
  const secrets = new Set<string>();
  if (channel.key.length >= 4) secrets.add(channel.key);
  try {
    const url = new URL(channel.baseUrl);
    for (const part of [url.username, url.password]) {
      if (part.length >= 3) {
        secrets.add(part);
        secrets.add(decodeURIComponent(part));
      }
    }
  } catch {
    // No base URL (the provider's default): no credentials in it.
  }
  for (const [name, value] of Object.entries(channel.settings.headerOverride ?? {})) {
    if (/auth|key|token|secret|cookie/i.test(name) && value.length >= 4) secrets.add(value);
  }
  let out = text;
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) out = out.split(secret).join('***');
  return out;
}

/** OpenAI's error envelope as text. */
export function errorEnvelope(
  message: string,
  type: string,
  code: string | null = null,
  param: string | null = null,
): string {
  return JSON.stringify({ error: { message, type, param, code } });
}

const REASON_TEXT: Readonly<Record<NoChannelReason, string>> = {
  none: 'no channel lists this model',
  'all-disabled': 'every channel that lists it is disabled',
  'none-servable': 'the channels that list it use providers the relay cannot serve yet',
  'all-failing': 'every channel that serves it is cooling down or failing',
};

/** The endpoints as the 503 names them when no candidate serves one. */
const ENDPOINT_NAMES: Readonly<Record<RelayEndpoint, string>> = {
  chat: 'chat completions',
  embeddings: 'embeddings',
  messages: "Anthropic's Messages API (/v1/messages)",
  responses: "OpenAI's Responses API (/v1/responses; docs/relay.md lists the providers that do)",
  count_tokens: "Anthropic's token counting (/v1/messages/count_tokens: anthropic and aws channels)",
};

const encoder = new TextEncoder();

interface Usage {
  promptTokens?: number;
  completionTokens?: number;
  totalTokens?: number;
}

function usageFrom(value: unknown): Usage | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const u = value as Record<string, unknown>;
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
  const usage: Usage = {};
  // OpenAI chat's spelling, else Anthropic's and the Responses API's (input_tokens, output_tokens).
  const prompt = num(u.prompt_tokens) ?? num(u.input_tokens);
  const completion = num(u.completion_tokens) ?? num(u.output_tokens);
  const total = num(u.total_tokens);
  if (prompt !== undefined) usage.promptTokens = prompt;
  if (completion !== undefined) usage.completionTokens = completion;
  if (total !== undefined) usage.totalTokens = total;
  else if (prompt !== undefined && completion !== undefined) usage.totalTokens = prompt + completion;
  return usage;
}

/** The body sent upstream for one attempt: mapped model, the channel's settings, stream usage asked for. */
export function prepareBody(
  request: Pick<RelayRequest, 'body' | 'endpoint'>,
  channel: RelayChannel,
  adapter: ProviderAdapter,
  model: string,
): Record<string, unknown> {
  const body: Record<string, unknown> = { ...request.body, model };
  const prompt = channel.settings.systemPrompt;
  if (request.endpoint === 'chat' && prompt !== undefined && prompt !== '' && Array.isArray(body.messages)) {
    // One API's setSystemPrompt (relay/controller/helper.go): the first message's content when it is a system
    // message, else a system message prepended.
    const messages = [...(body.messages as unknown[])];
    const first = messages[0] as Record<string, unknown> | undefined;
    if (first !== undefined && first.role === 'system') messages[0] = { ...first, content: prompt };
    else messages.unshift({ role: 'system', content: prompt });
    body.messages = messages;
  }
  // OpenAI's embeddings have no `stream`: an upstream never streams them (the relay answers them as JSON).
  if (request.endpoint === 'embeddings') delete body.stream;
  if (body.stream === true && adapter.streamUsageOption) {
    const options = typeof body.stream_options === 'object' && body.stream_options !== null ? body.stream_options : {};
    body.stream_options = { ...options, include_usage: true };
  } else {
    // Not a stream, or an upstream that may reject the field (New API removes it the same way).
    delete body.stream_options;
  }
  if (channel.settings.paramOverride) Object.assign(body, channel.settings.paramOverride);
  return body;
}

/** The status the caller gets for an upstream status, through the channel's statusCodeMapping. */
export function mappedStatus(channel: RelayChannel, status: number): number {
  const mapped = channel.settings.statusCodeMapping?.[String(status)];
  const value = mapped === undefined ? Number.NaN : Number(mapped);
  return Number.isInteger(value) && value >= 100 && value <= 599 ? value : status;
}

interface FailedAttempt {
  readonly status: number;
  readonly errorClass: AttemptErrorClass;
  readonly bodyText?: string;
  readonly channel: RelayChannel;
}

function classifyError(error: unknown, signal: AbortSignal): AttemptErrorClass {
  if (signal.aborted) return 'client-gone';
  if (error instanceof RefusedAddressError) return 'refused-address';
  if (error instanceof FirstByteTimeoutError) return 'timeout';
  return 'connect';
}

function upstreamErrorBody(failure: FailedAttempt, adapter: ProviderAdapter | undefined): string {
  const text = scrub(failure.bodyText ?? '', failure.channel);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const converted = parsed !== undefined ? adapter?.errorMessage?.(parsed) : undefined;
  if (converted) return errorEnvelope(converted.message, converted.type, converted.code);
  // Passed on only in OpenAI's envelope (an `error` object with its message): OpenAI's SDKs read `error.message`.
  const error = typeof parsed === 'object' && parsed !== null ? (parsed as { error?: unknown }).error : undefined;
  if (typeof error === 'object' && error !== null && typeof (error as { message?: unknown }).message === 'string') {
    return text;
  }
  const message = text.trim() === '' ? `upstream answered ${failure.status}` : text.slice(0, 1024);
  return errorEnvelope(message, 'upstream_error', `upstream_${failure.status}`);
}

export function createRelay(deps: RelayDeps): Relay {
  const maxAttempts = Math.max(1, deps.maxAttempts ?? 3);
  const outbound =
    deps.outbound ??
    createOutbound({
      allowedHosts: deps.allowedHosts,
      ...(deps.firstByteTimeoutMs !== undefined ? { firstByteTimeoutMs: deps.firstByteTimeoutMs } : {}),
      ...(deps.resolve ? { resolve: deps.resolve } : {}),
    });
  const log = deps.logger;
  // A provider's token exchange goes out through the same checked client as its requests.
  const tokenPost: TokenPost = async (url, headers, body, signal) => {
    const res = await outbound.send({ url, headers, body, signal });
    return { status: res.statusCode ?? 0, text: await readBounded(res) };
  };

  const background = (pending: Promise<unknown>[], work: Promise<void>, what: string, channelId: string) => {
    pending.push(
      work.catch((error: unknown) => log?.warn(`relay: ${what} failed`, { channelId, error: String(error) })),
    );
  };

  async function handle(request: RelayRequest): Promise<RelayResponse> {
    const arrived = deps.clock.now();
    const requestId = request.requestId;
    const pending: Promise<unknown>[] = [];
    const attempts: UsageAttempt[] = [];
    const model = typeof request.body.model === 'string' ? request.body.model : '';
    // Chat, Messages and Responses stream when asked; embeddings never do (main's ba82c2d: `stream: true` on embeddings
    // must not make an upstream's JSON answer count as a failure).
    const stream = request.endpoint !== 'embeddings' && request.body.stream === true;
    const wantsUsage =
      typeof request.body.stream_options === 'object' &&
      request.body.stream_options !== null &&
      (request.body.stream_options as Record<string, unknown>).include_usage === true;
    let group = request.caller.groups[0] ?? 'default';
    const base = {
      requestId,
      time: new Date(arrived).toISOString(),
      keyId: request.caller.keyId,
      endpoint: request.endpoint,
      requestedModel: model,
      stream,
    };

    // Runs once the body has ended and is never awaited by the body itself: the consumer's last read (the response's
    // end) never waits on the health writes or the usage record; `done` settles when they are written.
    const finish = async (
      fields: Partial<UsageRecord> & { status: number; clientGone: boolean },
    ): Promise<UsageRecord> => {
      const record: UsageRecord = {
        ...base,
        group,
        attempts,
        durationMs: deps.clock.now() - arrived,
        ...fields,
      };
      await Promise.allSettled(pending);
      try {
        await deps.usage.write(record);
      } catch (error) {
        log?.warn('relay: usage write failed', { requestId, error: String(error) });
      }
      return record;
    };

    /** A response whose whole body is `text`. */
    const whole = (status: number, text: string, fields: Partial<UsageRecord> = {}): RelayResponse => {
      let settle: (r: UsageRecord) => void = () => {};
      const done = new Promise<UsageRecord>((resolve) => {
        settle = resolve;
      });
      async function* body(): AsyncGenerator<Uint8Array> {
        let firstByteMs: number | undefined;
        let gone = true;
        try {
          firstByteMs = deps.clock.now() - arrived;
          yield encoder.encode(text);
          gone = false;
        } finally {
          void finish({
            ...fields,
            status,
            clientGone: gone || request.signal.aborted,
            ...(firstByteMs !== undefined ? { firstByteMs } : {}),
          }).then(settle);
        }
      }
      return {
        status,
        headers: { 'content-type': 'application/json', 'x-request-id': requestId },
        body: settledBody(body(), async () => {
          void finish({ ...fields, status, clientGone: true }).then(settle);
        }),
        done,
      };
    };

    if (model === '') {
      return whole(400, errorEnvelope('you must provide a model parameter', 'invalid_request_error', null, 'model'));
    }
    if (request.caller.models !== undefined && !request.caller.models.includes(model)) {
      return whole(
        403,
        errorEnvelope(`this key may not use model ${model}`, 'invalid_request_error', 'model_not_allowed', 'model'),
      );
    }

    let snapshot: Awaited<ReturnType<ChannelSource['snapshot']>>;
    try {
      snapshot = await deps.channels.snapshot();
    } catch (error) {
      log?.error('relay: channels could not be read', { requestId, error: String(error) });
      return whole(
        503,
        errorEnvelope(
          'the relay could not read its channels; try again',
          'service_unavailable',
          'channels_unavailable',
        ),
      );
    }
    const health = await deps.health.view().catch((error: unknown): HealthView => {
      log?.warn('relay: health read failed; routing without it', { error: String(error) });
      return EMPTY_HEALTH;
    });
    const resolved = resolveGroup(snapshot, request.caller.groups, model);
    const noChannel = (reason: NoChannelReason, why = REASON_TEXT[reason]) =>
      whole(
        503,
        errorEnvelope(
          `no channel serves model ${model} for group ${group}: ${why}${
            attempts.length > 0 ? ` (last attempt: ${attempts[attempts.length - 1]?.errorClass ?? 'failed'})` : ''
          }`,
          'service_unavailable',
          reason === 'all-failing' ? 'all_channels_failing' : `no_channel_${reason.replaceAll('-', '_')}`,
        ),
      );
    if (!resolved) return noChannel(noCandidateReason(snapshot, request.caller.groups, model));
    group = resolved.group;
    const now = deps.clock.now();
    let unservedEndpoint = 0;
    const picker = new ChannelPicker(resolved.tiers, deps.random, (channel) => {
      if (endpointAdapter(channel.provider, request.endpoint) === undefined) {
        unservedEndpoint++;
        return false;
      }
      return !health.isCoolingDown(channel.id, now);
    });

    let lastFailure: FailedAttempt | undefined;
    for (let attempt = 0; attempt < maxAttempts; attempt++) {
      const channel = picker.next();
      if (channel === undefined) break;
      const adapter = endpointAdapter(channel.provider, request.endpoint) as ProviderAdapter;
      const sentModel = upstreamModel(channel, model);
      const fail = (failure: FailedAttempt, invalidKey = false) => {
        attempts.push({ channelId: channel.id, status: failure.status, errorClass: failure.errorClass });
        if (isRetried(failure.errorClass)) {
          background(
            pending,
            deps.health.recordFailure({ channelId: channel.id, errorClass: failure.errorClass, invalidKey }),
            'health write',
            channel.id,
          );
        }
      };
      let res: IncomingMessage;
      try {
        const upstream = adapter.buildRequest({
          channel,
          endpoint: request.endpoint,
          body: prepareBody(request, channel, adapter, sentModel),
          stream,
          ...(request.headers ? { headers: request.headers } : {}),
        });
        const credentials = adapter.credentialHeaders
          ? await adapter.credentialHeaders(channel, tokenPost, upstream)
          : undefined;
        res = await outbound.send({
          url: upstream.url,
          headers: { ...upstream.headers, ...credentials, ...(channel.settings.headerOverride ?? {}) },
          body: upstream.body,
          signal: request.signal,
        });
      } catch (error) {
        const errorClass = classifyError(error, request.signal);
        fail({ status: 0, errorClass, channel });
        log?.warn('relay: attempt failed', { requestId, channelId: channel.id, errorClass });
        if (errorClass === 'client-gone') break;
        continue;
      }
      const status = res.statusCode ?? 0;
      if (status < 200 || status >= 300) {
        const bodyText = await readBounded(res);
        const errorClass = classifyStatus(status);
        const failure = { status, errorClass, bodyText, channel };
        fail(failure, isInvalidKey(status, bodyText));
        log?.warn('relay: upstream error', { requestId, channelId: channel.id, status, errorClass });
        if (!isRetried(errorClass)) {
          return whole(mappedStatus(channel, status), upstreamErrorBody(failure, adapter), {
            upstreamModel: sentModel,
            channelId: channel.id,
          });
        }
        lastFailure = failure;
        continue;
      }
      const contentType = String(res.headers['content-type'] ?? '');
      if (!stream) {
        const answer = await readJsonAnswer(res, adapter, model, request.signal);
        if (answer.kind === 'failed') {
          fail({ status, errorClass: answer.errorClass, channel });
          if (answer.errorClass === 'client-gone') break;
          const bodyText = `the upstream answered ${status} with a body that is not JSON (${contentType || 'no content type'})`;
          lastFailure = { status: 502, errorClass: answer.errorClass, bodyText, channel };
          continue;
        }
        if (health.get(channel.id))
          background(pending, deps.health.recordSuccess(channel.id), 'health reset', channel.id);
        attempts.push({ channelId: channel.id, status });
        return whole(status, answer.text, { upstreamModel: sentModel, channelId: channel.id, ...answer.usage });
      }
      if (!contentType.includes(adapter.streamContentType ?? 'text/event-stream')) {
        // A stream asked for and JSON (or HTML) answered: One API counts this as a failure too.
        res.destroy();
        const bodyText = `the upstream answered a stream request with ${contentType || 'no content type'}, not text/event-stream`;
        fail({ status, errorClass: 'server', channel });
        lastFailure = { status: 502, errorClass: 'server', bodyText, channel };
        continue;
      }
      const streamed = await openStream(res, adapter, model, wantsUsage);
      if (streamed.kind === 'failed') {
        fail({ status, errorClass: request.signal.aborted ? 'client-gone' : 'stream-dropped', channel });
        if (request.signal.aborted) break;
        continue;
      }
      if (health.get(channel.id))
        background(pending, deps.health.recordSuccess(channel.id), 'health reset', channel.id);
      attempts.push({ channelId: channel.id, status });
      return streamResponse(streamed, res, channel, sentModel, adapter);
    }

    if (lastFailure) {
      const channel = lastFailure.channel;
      return whole(
        mappedStatus(channel, lastFailure.status),
        upstreamErrorBody(lastFailure, endpointAdapter(channel.provider, request.endpoint)),
        {
          upstreamModel: upstreamModel(channel, model),
          channelId: channel.id,
        },
      );
    }
    if (request.signal.aborted) {
      return whole(499, errorEnvelope('the client went away', 'client_gone'), {});
    }
    if (attempts.length === 0 && unservedEndpoint > 0 && picker.skipped === unservedEndpoint) {
      return noChannel('none-servable', `the channels that list it do not serve ${ENDPOINT_NAMES[request.endpoint]}`);
    }
    return noChannel('all-failing');

    function streamResponse(
      streamed: OpenStream,
      res: IncomingMessage,
      channel: RelayChannel,
      sentModel: string,
      adapter: ProviderAdapter,
    ): RelayResponse {
      let settle: (r: UsageRecord) => void = () => {};
      const done = new Promise<UsageRecord>((resolve) => {
        settle = resolve;
      });
      async function* body(): AsyncGenerator<Uint8Array> {
        let firstByteMs: number | undefined;
        let completed = false;
        let streamError: string | undefined;
        try {
          if (streamed.first !== undefined) {
            firstByteMs = deps.clock.now() - arrived;
            yield encoder.encode(streamed.first);
          }
          try {
            for (;;) {
              const next = await streamed.rest.next();
              if (next.done) break;
              if (firstByteMs === undefined) firstByteMs = deps.clock.now() - arrived;
              yield encoder.encode(next.value);
            }
          } catch (error) {
            if (request.signal.aborted) throw error;
            // After the first byte there is no failing over: the stream ends with an OpenAI error event, which
            // OpenAI's SDKs raise as an APIError; no [DONE] follows, so no client takes the answer for complete.
            const message =
              error instanceof UpstreamStreamError
                ? scrub(error.message, channel)
                : 'the upstream stream ended unexpectedly';
            streamError = message;
            log?.warn('relay: stream failed after its first byte', { requestId, channelId: channel.id });
            yield encoder.encode(
              adapter.streamErrorEvent?.(message) ??
                sseData(errorEnvelope(message, 'upstream_error', 'stream_interrupted')),
            );
          }
          completed = true;
        } catch {
          // The client went away: its abort already aborted the upstream request.
        } finally {
          if (!completed) {
            res.destroy();
            await streamed.rest.return(undefined).catch(() => undefined);
          }
          if (streamError !== undefined) {
            const last = attempts[attempts.length - 1];
            if (last) attempts[attempts.length - 1] = { ...last, errorClass: 'stream-dropped' };
          }
          void finish({
            status: 200,
            upstreamModel: sentModel,
            channelId: channel.id,
            clientGone: !completed || request.signal.aborted,
            ...streamed.usage(),
            ...(firstByteMs !== undefined ? { firstByteMs } : {}),
          }).then(settle);
        }
      }
      return {
        status: 200,
        headers: {
          'content-type': 'text/event-stream; charset=utf-8',
          'cache-control': 'no-cache',
          'x-accel-buffering': 'no',
          'x-request-id': requestId,
        },
        body: settledBody(body(), async () => {
          res.destroy();
          await streamed.rest.return(undefined).catch(() => undefined);
          void finish({
            status: 200,
            upstreamModel: sentModel,
            channelId: channel.id,
            clientGone: true,
            ...streamed.usage(),
          }).then(settle);
        }),
        done,
      };
    }
  }

  async function listModels(caller: RelayCaller): Promise<string[]> {
    const snapshot = await deps.channels.snapshot();
    const models = new Set<string>();
    for (const group of caller.groups) {
      for (const model of snapshot.index.get(group)?.keys() ?? []) models.add(model);
    }
    const allowed = caller.models;
    return [...models].filter((m) => allowed === undefined || allowed.includes(m)).sort();
  }

  async function testChannel(channel: RelayChannel): Promise<ChannelTestResult> {
    const started = deps.clock.now();
    const model = channel.settings.testModel || channel.models[0] || '';
    const result = (ok: boolean, status: number, message?: string): ChannelTestResult => ({
      ok,
      status,
      latencyMs: deps.clock.now() - started,
      model,
      ...(message !== undefined ? { message: scrub(message, channel) } : {}),
    });
    const adapter = adapterFor(channel.provider);
    if (!adapter) return result(false, 0, `provider ${channel.provider} is not servable yet`);
    const endpoint: RelayEndpoint =
      /embedding/i.test(model) && adapter.endpoints.includes('embeddings') ? 'embeddings' : 'chat';
    const body =
      endpoint === 'embeddings'
        ? { model, input: 'hi' }
        : { model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 8 };
    const controller = new AbortController();
    try {
      const upstream = adapter.buildRequest({
        channel,
        endpoint,
        body: prepareBody({ body, endpoint }, channel, adapter, upstreamModel(channel, model)),
        stream: false,
      });
      const credentials = adapter.credentialHeaders
        ? await adapter.credentialHeaders(channel, tokenPost, upstream)
        : undefined;
      const res = await outbound.send({
        url: upstream.url,
        headers: { ...upstream.headers, ...credentials, ...(channel.settings.headerOverride ?? {}) },
        body: upstream.body,
        signal: controller.signal,
      });
      const status = res.statusCode ?? 0;
      const text = await readBounded(res);
      if (status >= 200 && status < 300) return result(true, status);
      let message = text;
      try {
        const parsed = JSON.parse(text) as { error?: { message?: unknown } };
        // The adapter's reading first: Bedrock's `{"message"}` may echo a signature's canonical request.
        const converted = adapter.errorMessage?.(parsed);
        if (converted) message = converted.message;
        else if (typeof parsed.error?.message === 'string') message = parsed.error.message;
      } catch {
        // Not JSON: the text itself, bounded.
      }
      return result(false, status, message.slice(0, 1024));
    } catch (error) {
      const errorClass = classifyError(error, controller.signal);
      return result(false, 0, `the upstream could not be reached (${errorClass})`);
    }
  }

  return { handle, listModels, testChannel, close: () => outbound.close() };
}

/**
 * The body as handed out: a consumer that gives up before its first read (`return()` on a fresh iterator) would skip a
 * generator's `finally`, so `abandoned` releases the upstream and settles `done` then.
 */
function settledBody(generator: AsyncGenerator<Uint8Array>, abandoned: () => Promise<void>): AsyncIterable<Uint8Array> {
  let started = false;
  const iterator: AsyncIterableIterator<Uint8Array> = {
    next() {
      started = true;
      return generator.next();
    },
    async return() {
      if (started) return generator.return(undefined);
      started = true;
      await generator.return(undefined);
      await abandoned();
      return { done: true, value: undefined };
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}

/** The largest non-stream answer the relay reads (a stream is never buffered). */
export const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

type JsonAnswer = { kind: 'ok'; text: string; usage: Usage } | { kind: 'failed'; errorClass: AttemptErrorClass };

/** A non-stream success: the whole JSON answer, converted to OpenAI's when the provider differs. */
async function readJsonAnswer(
  res: IncomingMessage,
  adapter: ProviderAdapter,
  model: string,
  signal: AbortSignal,
): Promise<JsonAnswer> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of res) {
      chunks.push(chunk as Buffer);
      size += (chunk as Buffer).length;
      // Far beyond any chat answer or embeddings batch: an upstream that never stops is not buffered without end.
      if (size > MAX_ANSWER_BYTES) {
        res.destroy();
        return { kind: 'failed', errorClass: 'server' };
      }
    }
  } catch {
    return { kind: 'failed', errorClass: signal.aborted ? 'client-gone' : 'stream-dropped' };
  }
  const raw = Buffer.concat(chunks).toString('utf8');
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(raw) as Record<string, unknown>;
    if (typeof json !== 'object' || json === null) throw new Error('not an object');
  } catch {
    return { kind: 'failed', errorClass: 'server' };
  }
  if (adapter.convertResponse) {
    const converted = adapter.convertResponse(json, model);
    return { kind: 'ok', text: JSON.stringify(converted), usage: usageFrom(converted.usage) ?? {} };
  }
  return { kind: 'ok', text: raw, usage: usageFrom(json.usage) ?? {} };
}

interface OpenStream {
  readonly kind: 'ok';
  /** The first event for the caller, already read (undefined when the upstream sent none). */
  readonly first: string | undefined;
  readonly rest: AsyncGenerator<string, void, undefined>;
  usage(): Usage;
}

/**
 * Starts reading a stream and waits for its first event: until then a failure still fails over. Each upstream event
 * is passed on as it arrives (OpenAI's as its own bytes, others converted); the usage chunk the relay asked for is
 * dropped unless the caller asked for it too.
 */
async function openStream(
  res: IncomingMessage,
  adapter: ProviderAdapter,
  model: string,
  wantsUsage: boolean,
): Promise<OpenStream | { kind: 'failed' }> {
  let usage: Usage = {};
  const relayed = adapter.eventRelay?.(model);
  const converter = adapter.streamConverter?.(model);
  const decode = adapter.decodeStream ?? parseSse;
  const forward = (chunk: Record<string, unknown>, raw: string | undefined): string | undefined => {
    if (typeof chunk.error === 'object' && chunk.error !== null) {
      const error = chunk.error as Record<string, unknown>;
      throw new UpstreamStreamError(
        String(error.message ?? 'upstream stream error'),
        String(error.type ?? 'upstream_error'),
      );
    }
    const found = usageFrom(chunk.usage);
    if (found && Object.keys(found).length > 0) {
      usage = found;
      if (!wantsUsage) {
        const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
        if (choices.length === 0) return undefined;
        const { usage: _dropped, ...rest } = chunk;
        return sseData(JSON.stringify(rest));
      }
    }
    return raw !== undefined ? sseData(raw) : sseData(JSON.stringify(chunk));
  };
  async function* events(): AsyncGenerator<string, void, undefined> {
    if (relayed) {
      // Another protocol's stream (Messages, Responses): its own events, names kept; usage as the adapter reads it.
      for await (const event of decode(res)) yield* relayed.relay(event);
      yield* relayed.end();
      return;
    }
    for await (const event of decode(res)) {
      if (converter) {
        for (const chunk of converter.convert(event)) {
          const out = forward(chunk, undefined);
          if (out !== undefined) yield out;
        }
        continue;
      }
      if (event.data === '[DONE]') {
        yield sseData('[DONE]');
        continue;
      }
      let chunk: unknown;
      try {
        chunk = JSON.parse(event.data);
      } catch {
        yield sseData(event.data);
        continue;
      }
      if (typeof chunk !== 'object' || chunk === null) {
        yield sseData(event.data);
        continue;
      }
      const out = forward(chunk as Record<string, unknown>, event.data);
      if (out !== undefined) yield out;
    }
    if (converter) yield sseData('[DONE]');
  }
  const rest = events();
  try {
    const first = await rest.next();
    return {
      kind: 'ok',
      first: first.done ? undefined : first.value,
      rest,
      usage: () => (relayed ? relayed.usage() : usage),
    };
  } catch {
    res.destroy();
    return { kind: 'failed' };
  }
}
