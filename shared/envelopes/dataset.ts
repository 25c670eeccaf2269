import type { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { DatasetApiError } from '#shared/errors';
import { jsonResponse } from '#shared/http';

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
    return jsonResponse(error.httpStatus, {
      code: error.code,
      statusText: error.statusText,
      message: error.message,
      data: null,
    });
  }
  logger.error('Unexpected error in the knowledge-base API', { error });
  return jsonResponse(500, { code: 500, statusText: 'error', message: 'Internal error', data: null });
}
