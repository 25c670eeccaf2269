import type { Logger } from '@aws-lambda-powertools/logger';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { corsHeaders } from '#shared/cors';
import { DATASET_ERROR_KINDS, DatasetApiError, type DatasetErrorKind, datasetErrors } from '#shared/errors';
import {
  type CallerContext,
  callerFrom,
  jsonResponse,
  type RequestErrors,
  validBody,
  validRequest,
} from '#shared/http';
import { type LambdaHandler, withLambdaContext } from '#shared/logger';
import { flushMetrics } from '#shared/metrics';
import { requestError } from '#shared/schemas/dataset-fields';
import * as z from '#shared/zod';

/** The body of a knowledge-base API success (docs/knowledge-base-api.md) around the call's `data`. */
export const datasetSuccessBodySchema = <T extends z.core.$ZodType>(data: T) =>
  z.strictObject({ code: z.literal(200), statusText: z.literal(''), message: z.literal(''), data });

/** The body of a knowledge-base API error: exactly these four keys; one kind's `code` and `statusText` when given. */
export const datasetErrorBodySchema = (kind?: { readonly code: number; readonly statusText: string }) =>
  z.strictObject({
    code: kind ? z.literal(kind.code) : z.int(),
    statusText: kind ? z.literal(kind.statusText) : z.string(),
    message: z.string(),
    data: z.null(),
  });
export type DatasetErrorBody = z.infer<ReturnType<typeof datasetErrorBodySchema>>;

/** The error body of one row of DATASET_ERROR_KINDS. */
export const datasetErrorKindBodySchema = (kind: DatasetErrorKind) => datasetErrorBodySchema(DATASET_ERROR_KINDS[kind]);

/** A response of the knowledge-base API with FastGPT's cross-origin headers for the caller (shared/cors.ts). */
export function withCors(
  response: APIGatewayProxyResult,
  event: Pick<APIGatewayProxyEvent, 'headers'>,
): APIGatewayProxyResult {
  const origin = Object.entries(event.headers ?? {}).find(([name]) => name.toLowerCase() === 'origin')?.[1];
  return { ...response, headers: { ...response.headers, ...corsHeaders(origin ?? undefined) } };
}

/** The knowledge-base API's success envelope around `data` (an id, a record, a list, or null). */
export function datasetSuccess(data: unknown): APIGatewayProxyResult {
  return jsonResponse(200, { code: 200, statusText: '', message: '', data });
}

/**
 * Maps any error to the knowledge-base API's error envelope. A DatasetApiError's message is
 * exposed; anything else becomes a generic 500 and is logged with its cause. DynamoDB throttling
 * lands here too: the SDK has already retried it with backoff, and the API has no 503 row.
 */
export function datasetErrorResponse(error: unknown, logger: Logger): APIGatewayProxyResult {
  if (error instanceof DatasetApiError && error.exposed) {
    const body: DatasetErrorBody = {
      code: error.code,
      statusText: error.statusText,
      message: error.message,
      data: null,
    };
    return jsonResponse(error.httpStatus, body);
  }
  logger.error('Unexpected error in the knowledge-base API', { error });
  const body: DatasetErrorBody = { code: 500, statusText: 'error', message: 'Internal error', data: null };
  return jsonResponse(500, body);
}

/**
 * A knowledge-base API handler: checks the authorizer context (scope `dataset`), runs `call`, and
 * wraps what it returns, or what it throws, in the API's envelope; its log lines carry the Lambda context.
 */
/** The caller the authorizer let in, with an access token of this API; else the API's 401. */
export function datasetCaller(event: Pick<APIGatewayProxyEvent, 'requestContext'>): CallerContext {
  const caller = callerFrom(event);
  if (!caller) throw datasetErrors.unauthorized('Missing or malformed Authorization header; expected "Bearer <token>"');
  // The authorizer's policy already keeps the admin key out; checked again in case a policy is ever wrong.
  if (caller.scope !== 'dataset') throw datasetErrors.unAuthApiKey('The API key is not valid for this API');
  return caller;
}

export function datasetHandler(
  logger: Logger,
  call: (event: APIGatewayProxyEvent, caller: CallerContext) => Promise<unknown>,
  /** The function's business metrics, written once per invocation (errors included) when given. */
  metrics?: Metrics,
): LambdaHandler<APIGatewayProxyEvent, APIGatewayProxyResult> {
  return withLambdaContext(logger, async (event) => {
    try {
      return withCors(datasetSuccess(await call(event, datasetCaller(event))), event);
    } catch (error) {
      return withCors(datasetErrorResponse(error, logger), event);
    } finally {
      if (metrics) flushMetrics(metrics);
    }
  });
}

/** How the knowledge-base API says a request is wrong: a missing field first, else the first problem. */
export const DATASET_REQUEST_ERRORS: RequestErrors = {
  malformed: (problem) => datasetErrors.invalidParams(problem),
  invalid: (error) => requestError(error),
};

const DATASET_QUERY_ERRORS: RequestErrors = {
  ...DATASET_REQUEST_ERRORS,
  invalid: (error) => requestError(error, 'The query is invalid'),
};

/** The request's JSON body validated with the function's schema, or the API's 400 saying what is wrong. */
export function datasetBody<S extends z.core.$ZodType>(event: APIGatewayProxyEvent, schema: S): z.output<S> {
  return validBody(event, schema, DATASET_REQUEST_ERRORS);
}

/**
 * The request's query string parameters (last value of a repeated name, as API Gateway hands them)
 * validated with the function's schema, or the API's 400.
 */
export function datasetQuery<S extends z.core.$ZodType>(event: APIGatewayProxyEvent, schema: S): z.output<S> {
  return validRequest({ ...(event.queryStringParameters ?? {}) }, schema, DATASET_QUERY_ERRORS);
}
