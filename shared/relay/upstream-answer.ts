import type { IncomingMessage } from 'node:http';
import type { AttemptErrorClass } from './contract.ts';
import { UpstreamStreamError } from './providers/anthropic.ts';
import type { ProviderAdapter, TokenUsage } from './providers/types.ts';
import { parseSse, sseData } from './sse.ts';

/*
 * Reading an upstream's successful answer (docs/relay.md, "Streaming"): a JSON answer read whole and bounded, or a
 * stream passed on event by event, and the token usage either reports.
 */

function usageFrom(value: unknown): TokenUsage | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const u = value as Record<string, unknown>;
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
  const usage: TokenUsage = {};
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

/** The largest non-stream answer the relay reads (a stream is never buffered). */
export const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

export type JsonAnswer =
  | { kind: 'ok'; text: string; json: Record<string, unknown>; usage: TokenUsage }
  | { kind: 'failed'; errorClass: AttemptErrorClass };

/** A non-stream success: the whole JSON answer, converted to OpenAI's when the provider differs. */
export async function readJsonAnswer(
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
    return { kind: 'ok', text: JSON.stringify(converted), json: converted, usage: usageFrom(converted.usage) ?? {} };
  }
  return { kind: 'ok', text: raw, json, usage: usageFrom(json.usage) ?? {} };
}

export interface OpenStream {
  readonly kind: 'ok';
  /** The first event for the caller, already read (undefined when the upstream sent none). */
  readonly first: string | undefined;
  readonly rest: AsyncGenerator<string, void, undefined>;
  usage(): TokenUsage;
}

/**
 * Starts reading a stream and waits for its first event: until then a failure still fails over. Each upstream event
 * is passed on as it arrives (OpenAI's as its own bytes, others converted); the usage chunk the relay asked for is
 * dropped unless the caller asked for it too.
 */
export async function openStream(
  res: IncomingMessage,
  adapter: ProviderAdapter,
  model: string,
  wantsUsage: boolean,
): Promise<OpenStream | { kind: 'failed' }> {
  let usage: TokenUsage = {};
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
