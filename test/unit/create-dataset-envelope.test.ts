import { ResourceNotFoundException } from '@aws-sdk/client-dynamodb';
import { describe, expect, it, vi } from 'vitest';
import { datasetErrorResponse, datasetSuccess } from '#shared/envelopes/dataset';
import { DatasetApiError, datasetErrors } from '#shared/errors';
import { createLogger } from '#shared/logger';
import { captureOutput } from '#test/support/capture-output';
import { expectDatasetInternalError } from '#test/support/responses';

function silentLogger() {
  const logger = createLogger('create-dataset-test', 'SILENT');
  return { logger, logged: vi.spyOn(logger, 'error') };
}

describe('datasetSuccess', () => {
  it('wraps the id in the FastGPT success envelope', () => {
    const response = datasetSuccess('0123456789abcdef01234567');

    expect(response.statusCode).toBe(200);
    expect(response.headers).toMatchObject({ 'Content-Type': 'application/json; charset=utf-8' });
    expect(JSON.parse(response.body)).toEqual({
      code: 200,
      statusText: '',
      message: '',
      data: '0123456789abcdef01234567',
    });
  });
});

describe('datasetErrorResponse', () => {
  it.each([
    [datasetErrors.invalidParams('intro must be at most 2000 characters'), 400, 507000, 'invalidParams'],
    [datasetErrors.missingParams('name is required'), 400, 507004, 'missingParams'],
    [datasetErrors.unExistDataset('parentId does not refer to an existing folder'), 404, 501002, 'unExistDataset'],
    [datasetErrors.invalidModel('vectorModel must be one of ...'), 400, 501010, 'invalidVectorModelOrQAModel'],
    [datasetErrors.unauthorized('Missing header'), 401, 403, 'unAuthorization'],
    [datasetErrors.unAuthApiKey('Wrong key'), 401, 514, 'unAuthApiKey'],
  ])('renders %s with its status, code and message and exactly four keys', (error, status, code, statusText) => {
    const { logger, logged } = silentLogger();

    const response = datasetErrorResponse(error, logger);

    expect(response.statusCode).toBe(status);
    expect(JSON.parse(response.body)).toStrictEqual({ code, statusText, message: error.message, data: null });
    expect(logged).not.toHaveBeenCalled();
  });

  it('hides an unexpected error behind a generic 500 and logs it with its cause', () => {
    const { logger, logged } = silentLogger();
    const cause = new ResourceNotFoundException({
      message: 'Requested resource not found: datasets-prod',
      $metadata: {},
    });
    const error = new Error('wrapped failure', { cause });

    const response = datasetErrorResponse(error, logger);

    expectDatasetInternalError(response);
    expect(response.body).not.toContain('datasets-prod');
    expect(logged).toHaveBeenCalledWith(expect.any(String), { error });
  });

  it('never exposes the message of a DatasetApiError of 500 or above', () => {
    const { logger } = silentLogger();
    const internal = new DatasetApiError(503, 503, 'unavailable', 'table datasets-prod is throttled');

    const response = datasetErrorResponse(internal, logger);

    expect(response.statusCode).toBe(500);
    expect(response.body).not.toContain('datasets-prod');
  });

  it('writes the cause of an unexpected error into the log line', () => {
    const logger = createLogger('create-dataset-test', 'ERROR');
    const output = captureOutput();
    const cause = new Error('socket hang up');

    try {
      datasetErrorResponse(new Error('put failed', { cause }), logger);
    } finally {
      output.restore();
    }

    const entry = JSON.parse(output.text().trim()) as { error: { message: string; cause: { message: string } } };
    expect(entry.error.message).toBe('put failed');
    expect(entry.error.cause.message).toBe('socket hang up');
  });
});
