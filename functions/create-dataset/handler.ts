import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { documentClient } from '#shared/clients/dynamodb';
import { createDatasetEnvSchema, loadConfig } from '#shared/config';
import { datasetErrorResponse, datasetSuccess } from '#shared/envelopes/dataset';
import { datasetErrors } from '#shared/errors';
import { BODY_PROBLEMS, callerFrom, parseJsonObjectBody } from '#shared/http';
import { newObjectId } from '#shared/ids';
import { createLogger } from '#shared/logger';
import { addMetric, BUSINESS_METRICS, createMetrics, flushMetrics } from '#shared/metrics';
import { DynamoDatasetRepository } from '#shared/repositories/datasets';
import { type CreateDatasetDeps, createDataset } from './create-dataset.ts';

const config = loadConfig(createDatasetEnvSchema);
const logger = createLogger('create-dataset', config.LOG_LEVEL);
const metrics = createMetrics();
const deps: CreateDatasetDeps = {
  repo: new DynamoDatasetRepository(documentClient, config.DATASETS_TABLE),
  catalog: config.MODEL_CATALOG,
  now: () => new Date(),
  newId: () => newObjectId(),
};

/** POST /api/core/dataset/create behind the authorizer. */
export const handler = async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
  try {
    const caller = callerFrom(event);
    if (!caller)
      throw datasetErrors.unauthorized('Missing or malformed Authorization header; expected "Bearer <token>"');
    // The authorizer's policy already keeps the admin key out; checked again in case a policy is ever wrong.
    if (caller.scope !== 'dataset') throw datasetErrors.unAuthApiKey('The API key is not valid for this API');
    const body = parseJsonObjectBody(event);
    if (!body.ok) throw datasetErrors.invalidParams(BODY_PROBLEMS[body.reason]);
    const { id } = await createDataset({ body: body.value, caller }, deps);
    addMetric(metrics, BUSINESS_METRICS.datasetsCreated, 1);
    return datasetSuccess(id);
  } catch (error) {
    return datasetErrorResponse(error, logger);
  } finally {
    flushMetrics(metrics);
  }
};
