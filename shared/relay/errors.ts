import type { AttemptErrorClass, RelayChannel, RelayEndpoint } from './contract.ts';
import { FirstByteTimeoutError, RefusedAddressError } from './outbound.ts';
import type { ProviderAdapter } from './providers/types.ts';
import type { NoChannelReason } from './routing.ts';

/*
 * How the relay names what went wrong (docs/relay.md, "Failover"): the class of each failed attempt, which classes are
 * retried, and the error bodies the caller receives, always scrubbed of the channel's credentials.
 */

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

export const REASON_TEXT: Readonly<Record<NoChannelReason, string>> = {
  none: 'no channel lists this model',
  'all-disabled': 'every channel that lists it is disabled',
  'none-servable': 'the channels that list it use providers the relay cannot serve yet',
  'all-failing': 'every channel that serves it is cooling down or failing',
};

/** The endpoints as the 503 names them when no candidate serves one. */
export const ENDPOINT_NAMES: Readonly<Record<RelayEndpoint, string>> = {
  chat: 'chat completions',
  embeddings: 'embeddings',
  messages: "Anthropic's Messages API (/v1/messages)",
  responses: "OpenAI's Responses API (/v1/responses; docs/relay.md lists the providers that do)",
  count_tokens: "Anthropic's token counting (/v1/messages/count_tokens: anthropic and aws channels)",
  rerank: 'rerank (/v1/rerank; docs/relay.md lists the providers that do)',
};

/** The status the caller gets for an upstream status, through the channel's statusCodeMapping. */
export function mappedStatus(channel: RelayChannel, status: number): number {
  const mapped = channel.settings.statusCodeMapping?.[String(status)];
  const value = mapped === undefined ? Number.NaN : Number(mapped);
  return Number.isInteger(value) && value >= 100 && value <= 599 ? value : status;
}

export interface FailedAttempt {
  readonly status: number;
  readonly errorClass: AttemptErrorClass;
  readonly bodyText?: string;
  readonly channel: RelayChannel;
}

export function classifyError(error: unknown, signal: AbortSignal): AttemptErrorClass {
  if (signal.aborted) return 'client-gone';
  if (error instanceof RefusedAddressError) return 'refused-address';
  if (error instanceof FirstByteTimeoutError) return 'timeout';
  return 'connect';
}

/** The caller's body for an upstream's error: in OpenAI's envelope, scrubbed. */
export function upstreamErrorBody(failure: FailedAttempt, adapter: ProviderAdapter | undefined): string {
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
