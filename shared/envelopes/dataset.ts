import type { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayProxyResult } from 'aws-lambda';
import * as z from 'zod';
import { DATASET_ERROR_KINDS, DatasetApiError, type DatasetErrorKind } from '#shared/errors';
import { jsonResponse } from '#shared/http';

/** The body of a knowledge-base API success (SPEC 2.2) around the call's `data`. */
export const datasetSuccessBodySchema = <T extends z.ZodType>(data: T) =>
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

/** The knowledge-base API's success envelope carrying the new id (SPEC 2.2). */
export function datasetSuccess(id: string): APIGatewayProxyResult {
  return jsonResponse(200, { code: 200, statusText: '', message: '', data: id });
}

/**
 * Maps any error to the knowledge-base API's error envelope. A DatasetApiError's message is
 * exposed; anything else becomes a generic 500 and is logged with its cause. DynamoDB throttling
 * lands here too: the SDK has already retried it with backoff, and SPEC 2.2 has no 503 row.
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
