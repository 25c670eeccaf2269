/*
 * `/v1/messages` answers errors in Anthropic's envelope, `{"type":"error","error":{"type","message"}}`, which
 * Anthropic's SDKs read into their APIError (Anthropic's API reference, "Errors"). The front door and the routing core
 * write OpenAI's envelope; this turns one into the other (an upstream's own Anthropic error passes unchanged).
 */

/** Anthropic's error type for an HTTP status, as its API reference lists them. */
export function anthropicErrorType(status: number): string {
  switch (status) {
    case 400:
    case 413:
      return status === 413 ? 'request_too_large' : 'invalid_request_error';
    case 401:
      return 'authentication_error';
    case 403:
      return 'permission_error';
    case 404:
      return 'not_found_error';
    case 429:
      return 'rate_limit_error';
    case 529:
      return 'overloaded_error';
    default:
      return status >= 500 ? 'api_error' : 'invalid_request_error';
  }
}

/** Anthropic's envelope for a message and status. */
export function anthropicErrorBody(status: number, message: string): string {
  return JSON.stringify({ type: 'error', error: { type: anthropicErrorType(status), message } });
}

/** The text of an error body in Anthropic's envelope: OpenAI's converted, Anthropic's kept, anything else wrapped. */
export function toAnthropicError(status: number, text: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return anthropicErrorBody(status, text.slice(0, 1024) || `upstream answered ${status}`);
  }
  if (typeof parsed !== 'object' || parsed === null) return anthropicErrorBody(status, `upstream answered ${status}`);
  const body = parsed as { type?: unknown; error?: unknown };
  if (body.type === 'error' && typeof body.error === 'object' && body.error !== null) return text;
  const error = body.error as { message?: unknown } | undefined;
  const message = typeof error?.message === 'string' ? error.message : `upstream answered ${status}`;
  return anthropicErrorBody(status, message);
}

/** A reply of the Messages route: an error's body rewritten into Anthropic's envelope (errors are small, whole). */
export async function inAnthropicEnvelope<
  R extends { status: number; headers: Readonly<Record<string, string>>; body: AsyncIterable<Uint8Array> },
>(reply: R): Promise<R> {
  if (reply.status < 400 || !String(reply.headers['content-type'] ?? '').includes('json')) return reply;
  const chunks: Uint8Array[] = [];
  for await (const chunk of reply.body) chunks.push(chunk);
  const bytes = Buffer.from(toAnthropicError(reply.status, Buffer.concat(chunks).toString('utf8')));
  return {
    ...reply,
    body: (async function* () {
      yield bytes;
    })(),
  };
}
