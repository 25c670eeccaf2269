import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import * as z from './zod.ts';

/** Largest request body either API accepts (docs/knowledge-base-api.md); larger bodies are rejected unparsed. */
export const MAX_BODY_BYTES = 64 * 1024;

const JSON_HEADERS = { 'Content-Type': 'application/json; charset=utf-8' } as const;

/** A JSON response for API Gateway's proxy integration. */
export function jsonResponse(statusCode: number, body: unknown): APIGatewayProxyResult {
  return { statusCode, headers: { ...JSON_HEADERS }, body: JSON.stringify(body) };
}

export type BodyResult<T = Record<string, unknown>> =
  | { ok: true; value: T }
  | { ok: false; reason: 'too-large' | 'not-json' | 'not-object' | 'not-array' };

/** Decodes a proxy event's body as JSON of any shape, without trusting its size (`maxBytes`, default MAX_BODY_BYTES). */
export function parseJsonBody(
  event: Pick<APIGatewayProxyEvent, 'body' | 'isBase64Encoded'>,
  maxBytes = MAX_BODY_BYTES,
): BodyResult<unknown> {
  const raw = event.body ?? '';
  const text = event.isBase64Encoded ? Buffer.from(raw, 'base64').toString('utf8') : raw;
  if (Buffer.byteLength(text, 'utf8') > maxBytes) return { ok: false, reason: 'too-large' };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false, reason: 'not-json' };
  }
}

/** Decodes a proxy event's body into a plain JSON object, without trusting its size (`maxBytes`) or shape. */
export function parseJsonObjectBody(
  event: Pick<APIGatewayProxyEvent, 'body' | 'isBase64Encoded'>,
  maxBytes = MAX_BODY_BYTES,
): BodyResult {
  const parsed = parseJsonBody(event, maxBytes);
  if (!parsed.ok) return parsed;
  const { value } = parsed;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, reason: 'not-object' };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

/** Decodes a proxy event's body into a JSON array, without trusting its size (`maxBytes`) or shape. */
export function parseJsonArrayBody(
  event: Pick<APIGatewayProxyEvent, 'body' | 'isBase64Encoded'>,
  maxBytes = MAX_BODY_BYTES,
): BodyResult<unknown[]> {
  const parsed = parseJsonBody(event, maxBytes);
  if (!parsed.ok) return parsed;
  return Array.isArray(parsed.value) ? { ok: true, value: parsed.value } : { ok: false, reason: 'not-array' };
}

/** A readable message for each way a body can fail `parseJsonObjectBody` or `parseJsonArrayBody`. */
export const BODY_PROBLEMS: Readonly<Record<Extract<BodyResult, { ok: false }>['reason'], string>> = {
  'too-large': `The body must be at most ${MAX_BODY_BYTES} bytes`,
  'not-json': 'The body must be valid JSON',
  'not-object': 'The body must be a JSON object',
  'not-array': 'The body must be a JSON array',
};

/** Authorizer context as API Gateway hands it to a proxy integration. */
export interface CallerContext {
  scope: 'dataset' | 'admin';
  teamId: string;
  tmbId: string;
  tokenId: string;
}

/** Reads the authorizer context from a proxy event; null when absent or malformed. */
export function callerFrom(event: Pick<APIGatewayProxyEvent, 'requestContext'>): CallerContext | null {
  const ctx = event.requestContext?.authorizer as Record<string, unknown> | null | undefined;
  if (!ctx) return null;
  const { scope, teamId, tmbId, tokenId } = ctx;
  if (scope !== 'dataset' && scope !== 'admin') return null;
  if (typeof teamId !== 'string' || typeof tmbId !== 'string' || typeof tokenId !== 'string') return null;
  return { scope, teamId, tmbId, tokenId };
}

/** How one API says that a request is wrong: each returns that API's own 400 error. */
export interface RequestErrors {
  /** The body is not a JSON object at all (too large, not JSON, not an object). */
  malformed(problem: string): Error;
  /** The decoded body or query (`value`) fails the function's schema. */
  invalid(error: z.core.$ZodError, value: unknown): Error;
}

/**
 * The one way a function validates its request: runs the function's zod schema over an already decoded
 * part of it (a body, the query parameters) and returns the typed value, or throws the API's 400.
 */
export function validRequest<S extends z.core.$ZodType>(value: unknown, schema: S, errors: RequestErrors): z.output<S> {
  const parsed = z.safeParse(schema, value);
  if (!parsed.success) throw errors.invalid(parsed.error, value);
  return parsed.data;
}

/**
 * Decodes the event's JSON body, a JSON object unless `options.shape` says array, at most `options.maxBytes`
 * (default MAX_BODY_BYTES), and validates it with `schema`.
 */
export function validBody<S extends z.core.$ZodType>(
  event: Pick<APIGatewayProxyEvent, 'body' | 'isBase64Encoded'>,
  schema: S,
  errors: RequestErrors,
  options: { shape?: 'object' | 'array'; maxBytes?: number } = {},
): z.output<S> {
  const maxBytes = options.maxBytes ?? MAX_BODY_BYTES;
  const body: BodyResult<unknown> =
    options.shape === 'array' ? parseJsonArrayBody(event, maxBytes) : parseJsonObjectBody(event, maxBytes);
  if (!body.ok) {
    throw errors.malformed(
      body.reason === 'too-large' ? `The body must be at most ${maxBytes} bytes` : BODY_PROBLEMS[body.reason],
    );
  }
  return validRequest(body.value, schema, errors);
}
