import { documentClient } from '#shared/clients/dynamodb';
import { catalogEnvSchema, loadConfig } from '#shared/config';
import { datasetBody, datasetHandler, datasetQuery } from '#shared/envelopes/dataset';
import { createLogger } from '#shared/logger';
import { DynamoDatasetRepository } from '#shared/repositories/datasets';
import { LIST_LIMITS, type ListDatasetsDeps, listDatasets } from './list-datasets.ts';
import { listDatasetsBodySchema, listDatasetsQuerySchema } from './schema.ts';

const config = loadConfig(catalogEnvSchema);
const logger = createLogger('list-datasets', config.LOG_LEVEL);
const deps: ListDatasetsDeps = {
  repo: new DynamoDatasetRepository(documentClient, config.DATASETS_TABLE),
  catalog: config.MODEL_CATALOG,
  limits: LIST_LIMITS,
};

/**
 * POST /api/core/dataset/list (its body; no body at all counts as `{}`) and GET /api/core/dataset/list
 * (its query, read like the body) behind the authorizer.
 */
export const handler = datasetHandler(logger, (event, caller) => {
  const body =
    event.httpMethod === 'GET'
      ? datasetQuery(event, listDatasetsQuerySchema)
      : datasetBody(event.body ? event : { ...event, body: '{}', isBase64Encoded: false }, listDatasetsBodySchema);
  return listDatasets({ body, caller }, deps);
});
