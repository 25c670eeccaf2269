import type { IncomingMessage } from 'node:http';
import type { RelayChannel, RelayResponse, UsageAttempt, UsageRecord } from './contract.ts';
import { errorEnvelope, scrub } from './errors.ts';
import type { Clock } from './health.ts';
import { UpstreamStreamError } from './providers/anthropic.ts';
import type { ProviderAdapter } from './providers/types.ts';
import { sseData } from './sse.ts';
import type { OpenStream } from './upstream-answer.ts';

/*
 * The relay's answers as the front door sends them (docs/relay.md, "Streaming"): a whole body, or an upstream stream
 * passed through. Either settles `done` with the usage record once its body has ended, without making the body's last
 * read wait for it.
 */

/**
 * What the core logs through; a Powertools Logger (shared/logger.ts) fits as it is. The core passes fields only:
 * never a key, a body or an upstream's raw error text.
 */
export interface RelayLogger {
  warn(message: string, ...fields: Record<string, unknown>[]): void;
  error(message: string, ...fields: Record<string, unknown>[]): void;
}

/** One request's state the answer needs. */
export interface AnswerContext {
  readonly requestId: string;
  /** When the request arrived (the clock's milliseconds). */
  readonly arrived: number;
  readonly clock: Clock;
  readonly signal: AbortSignal;
  /** The request's attempts, the last one marked when its stream drops after the first byte. */
  readonly attempts: UsageAttempt[];
  readonly log: RelayLogger | undefined;
  /** Writes the usage record; called once the body has ended, never awaited by the body itself. */
  finish(fields: Partial<UsageRecord> & { status: number; clientGone: boolean }): Promise<UsageRecord>;
}

const encoder = new TextEncoder();

function settlement(): { done: Promise<UsageRecord>; settle: (record: UsageRecord) => void } {
  let settle: (record: UsageRecord) => void = () => {};
  const done = new Promise<UsageRecord>((resolve) => {
    settle = resolve;
  });
  return { done, settle };
}

/** A response whose whole body is `text`. */
export function wholeResponse(
  context: AnswerContext,
  status: number,
  text: string,
  fields: Partial<UsageRecord> = {},
  json?: Record<string, unknown>,
): RelayResponse {
  const { done, settle } = settlement();
  const { clock, arrived, signal, finish } = context;
  let taken = false;
  // The parsed answer, kept only until the body or it is taken (a front door reading the body holds one copy, not two).
  let parsed = json;
  // The parsed answer handed over whole (RelayResponse.takeJson): delivered at once, as a body read to its end is.
  const takeJson = () => {
    if (taken || parsed === undefined) throw new Error('the answer was already taken');
    taken = true;
    const answer = parsed;
    parsed = undefined;
    const firstByteMs = clock.now() - arrived;
    void finish({ ...fields, status, clientGone: signal.aborted, firstByteMs }).then(settle);
    return answer;
  };
  async function* body(): AsyncGenerator<Uint8Array> {
    if (taken) throw new Error('the answer was already taken');
    taken = true;
    parsed = undefined;
    let firstByteMs: number | undefined;
    let gone = true;
    try {
      firstByteMs = clock.now() - arrived;
      yield encoder.encode(text);
      gone = false;
    } finally {
      void finish({
        ...fields,
        status,
        clientGone: gone || signal.aborted,
        ...(firstByteMs !== undefined ? { firstByteMs } : {}),
      }).then(settle);
    }
  }
  return {
    status,
    headers: { 'content-type': 'application/json', 'x-request-id': context.requestId },
    body: settledBody(body(), async () => {
      if (taken) return;
      taken = true;
      void finish({ ...fields, status, clientGone: true }).then(settle);
    }),
    done,
    ...(json !== undefined ? { takeJson } : {}),
  };
}

/** A stream whose first event has arrived, passed on as it arrives; after its first byte it never fails over. */
export function streamResponse(
  context: AnswerContext,
  streamed: OpenStream,
  res: IncomingMessage,
  channel: RelayChannel,
  sentModel: string,
  adapter: ProviderAdapter,
): RelayResponse {
  const { done, settle } = settlement();
  const { clock, arrived, signal, attempts, finish, log } = context;
  async function* body(): AsyncGenerator<Uint8Array> {
    let firstByteMs: number | undefined;
    let completed = false;
    let streamError: string | undefined;
    try {
      if (streamed.first !== undefined) {
        firstByteMs = clock.now() - arrived;
        yield encoder.encode(streamed.first);
      }
      try {
        for (;;) {
          const next = await streamed.rest.next();
          if (next.done) break;
          if (firstByteMs === undefined) firstByteMs = clock.now() - arrived;
          yield encoder.encode(next.value);
        }
      } catch (error) {
        if (signal.aborted) throw error;
        // After the first byte there is no failing over: the stream ends with an OpenAI error event, which
        // OpenAI's SDKs raise as an APIError; no [DONE] follows, so no client takes the answer for complete.
        const message =
          error instanceof UpstreamStreamError
            ? scrub(error.message, channel)
            : 'the upstream stream ended unexpectedly';
        streamError = message;
        log?.warn('relay: stream failed after its first byte', {
          requestId: context.requestId,
          channelId: channel.id,
        });
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
        clientGone: !completed || signal.aborted,
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
      'x-request-id': context.requestId,
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
