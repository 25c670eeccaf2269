import type { Logger } from '@aws-lambda-powertools/logger';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { ProxyApiError } from '#shared/errors';
import { callerFrom, jsonResponse, type RequestErrors, validBody, validRequest } from '#shared/http';
import { type LambdaHandler, withLambdaContext } from '#shared/logger';
import { flushMetrics } from '#shared/metrics';
import * as z from '#shared/zod';

/** The body of a channel proxy API success (docs/channel-import.md) around the call's `data`. */
export const proxySuccessBodySchema = <T extends z.core.$ZodType>(data: T) =>
  z.strictObject({ success: z.literal(true), data });

/** The body of every channel proxy API error. */
export const proxyErrorBodySchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.strictObject({ success: z.literal(false), message: z.string() }),
);
export type ProxyErrorBody = z.infer<typeof proxyErrorBodySchema>;

/** The channel proxy API's success envelope (docs/channel-import.md). */
export function proxySuccess(data: unknown): APIGatewayProxyResult {
  return jsonResponse(200, { success: true, data });
}

/**
 * Maps any error to the proxy API's error envelope `{"success": false, "message"}`. An exposed
 * ProxyApiError is shown as is; anything else becomes a generic 500, logged with a summary of its cause
 * chain: names, codes and messages, which our code keeps free of DSNs, passwords and keys.
 */
export function proxyErrorResponse(error: unknown, logger: Logger): APIGatewayProxyResult {
  if (error instanceof ProxyApiError && error.exposed) {
    if (error.httpStatus >= 500)
      logger.warn('Request failed', { status: error.httpStatus, error: summarizeError(error) });
    const body: ProxyErrorBody = { success: false, message: error.message };
    return jsonResponse(error.httpStatus, body);
  }
  logger.error('Unexpected error in the channel proxy API', { error: summarizeError(error) });
  const body: ProxyErrorBody = { success: false, message: 'Internal error' };
  return jsonResponse(500, body);
}

/** How the channel proxy API says a request is wrong: every problem of the body, in one message. */
export const PROXY_REQUEST_ERRORS: RequestErrors = {
  malformed: (problem) => new ProxyApiError(400, problem),
  invalid: (error) => new ProxyApiError(400, [...new Set(error.issues.map((i) => i.message))].join('; ')),
};

/** The request's JSON body validated with the function's schema, or the API's 400 saying what is wrong. */
export function proxyBody<S extends z.core.$ZodType>(
  event: Parameters<typeof validBody>[0],
  schema: S,
  options: Parameters<typeof validBody>[3] = {},
  errors: RequestErrors = PROXY_REQUEST_ERRORS,
): z.output<S> {
  return validBody(event, schema, errors, options);
}

/** The request's query parameters (already decoded) validated with the function's schema, or the API's 400. */
export function proxyQuery<S extends z.core.$ZodType>(query: unknown, schema: S): z.output<S> {
  return validRequest(query, schema, PROXY_REQUEST_ERRORS);
}

/** A loggable description of an error and its causes: name, code, errno and message only (no stack, no request data). */
export function summarizeError(error: unknown, depth = 0): Record<string, unknown> {
  if (!(error instanceof Error)) return { value: typeof error };
  const e = error as Error & { code?: unknown; errno?: unknown; written?: unknown };
  const summary: Record<string, unknown> = { name: e.name, message: e.message };
  if (typeof e.code === 'string' || typeof e.code === 'number') summary.code = e.code;
  if (typeof e.errno === 'string' || typeof e.errno === 'number') summary.errno = e.errno;
  if (typeof e.written === 'number') summary.written = e.written;
  if (e.cause !== undefined && depth < 4) summary.cause = summarizeError(e.cause, depth + 1);
  return summary;
}

/**
 * A channel proxy API handler: checks the admin scope again (the authorizer's policy already keeps access tokens
 * out; this holds should a policy ever be wrong), runs `handle`, and answers its result or error in the envelope.
 * With `metrics`, flushes what the call recorded.
 */
export function adminHandler(
  logger: Logger,
  handle: (event: APIGatewayProxyEvent) => Promise<unknown>,
  options: { metrics?: Metrics } = {},
): LambdaHandler<APIGatewayProxyEvent, APIGatewayProxyResult> {
  return withLambdaContext(logger, async (event) => {
    try {
      if (callerFrom(event)?.scope !== 'admin') throw new ProxyApiError(401, 'The admin key is required for this API');
      return proxySuccess(await handle(event));
    } catch (error) {
      return proxyErrorResponse(error, logger);
    } finally {
      // What the call recorded is written on every path, error paths too.
      if (options.metrics) flushMetrics(options.metrics);
    }
  });
}
