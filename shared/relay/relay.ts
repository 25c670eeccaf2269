import type { IncomingMessage } from 'node:http';
import type { AllowList } from '../allow-list.ts';
import type { ChannelSource } from './channel-source.ts';
import { testChannel } from './channel-test.ts';
import type {
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
import {
  classifyError,
  classifyStatus,
  ENDPOINT_NAMES,
  errorEnvelope,
  type FailedAttempt,
  isInvalidKey,
  isRetried,
  mappedStatus,
  REASON_TEXT,
  upstreamErrorBody,
} from './errors.ts';
import { type Clock, EMPTY_HEALTH, type HealthStore, type HealthView } from './health.ts';
import { createOutbound, type Outbound, type OutboundOptions, readBounded } from './outbound.ts';
import { endpointAdapter } from './providers/endpoints.ts';
import type { ProviderAdapter, TokenPost } from './providers/types.ts';
import { prepareBody } from './request-body.ts';
import { type AnswerContext, type RelayLogger, streamResponse, wholeResponse } from './responses.ts';
import { ChannelPicker, type NoChannelReason, noCandidateReason, resolveGroup, upstreamModel } from './routing.ts';
import { attemptsFor, currentRoutingOptions, type RoutingOptionsSource } from './routing-options.ts';
import { openStream, readJsonAnswer } from './upstream-answer.ts';

/*
 * The attempt loop (docs/relay.md, "Failover"): one routing core for every front door. It knows no HTTP event; the
 * `/v1` handler, the channel test and the knowledge base's training call it with a RelayRequest. Its parts: the error
 * classes and bodies (errors.ts), the body sent upstream (request-body.ts), the upstream's answer read or streamed
 * (upstream-answer.ts), the answers handed to the front door (responses.ts), the channel test (channel-test.ts).
 */

export { classifyStatus, errorEnvelope, isInvalidKey, isRetried, mappedStatus, scrub } from './errors.ts';
export { prepareBody } from './request-body.ts';
export type { RelayLogger } from './responses.ts';
export { MAX_ANSWER_BYTES } from './upstream-answer.ts';

/** Endpoints whose upstreams answer JSON only, whatever `stream` says. */
const JSON_ONLY: ReadonlySet<RelayEndpoint> = new Set(['embeddings', 'rerank']);

export interface RelayDeps {
  readonly channels: ChannelSource;
  readonly health: HealthStore;
  readonly usage: UsageSink;
  readonly clock: Clock;
  /** A number in [0, 1). */
  readonly random: () => number;
  /** Attempts in all, across channels (RELAY_MAX_ATTEMPTS); unset: the imported RetryTimes + 1, else 3. */
  readonly maxAttempts?: number;
  /** The routing options imported from the legacy gateway (docs/relay.md, "Routing options"). */
  readonly routingOptions?: RoutingOptionsSource;
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

export function createRelay(deps: RelayDeps): Relay {
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
    // Chat, Messages and Responses stream when asked; embeddings and rerank never do (main's ba82c2d: `stream: true` on
    // embeddings must not make an upstream's JSON answer count as a failure).
    const stream = !JSON_ONLY.has(request.endpoint) && request.body.stream === true;
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

    const answer: AnswerContext = {
      requestId,
      arrived,
      clock: deps.clock,
      signal: request.signal,
      attempts,
      log,
      finish,
    };
    const whole = (
      status: number,
      text: string,
      fields: Partial<UsageRecord> = {},
      json?: Record<string, unknown>,
    ): RelayResponse => wholeResponse(answer, status, text, fields, json);

    if (model === '') {
      return whole(400, errorEnvelope('you must provide a model parameter', 'invalid_request_error', null, 'model'));
    }
    if (request.caller.models !== undefined && !request.caller.models.includes(model)) {
      return whole(
        403,
        errorEnvelope(`this key may not use model ${model}`, 'invalid_request_error', 'model_not_allowed', 'model'),
      );
    }

    const imported = await currentRoutingOptions(deps.routingOptions, log);
    const maxAttempts = attemptsFor(deps.maxAttempts, imported);
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
            // Without automatic disabling (imported off), an invalid key only cools the channel down.
            deps.health.recordFailure({
              channelId: channel.id,
              errorClass: failure.errorClass,
              invalidKey: invalidKey && imported.autoDisable !== false,
            }),
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
        const fields = { upstreamModel: sentModel, channelId: channel.id, ...answer.usage };
        return whole(status, answer.text, fields, answer.json);
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
      return streamResponse(answer, streamed, res, channel, sentModel, adapter);
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

  return {
    handle,
    listModels,
    testChannel: (channel: RelayChannel): Promise<ChannelTestResult> =>
      testChannel(channel, { clock: deps.clock, outbound, tokenPost }),
    close: () => outbound.close(),
  };
}
