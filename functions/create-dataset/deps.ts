import { documentClient } from '#shared/clients/dynamodb';
import type { CreateDatasetConfig } from '#shared/config';
import { newObjectId } from '#shared/ids';
import { DynamoDatasetRepository } from '#shared/repositories/datasets';
import type { CreateDatasetDeps } from './create-dataset.ts';

/** The production collaborators of a create (a knowledge base or a folder), from the function's configuration. */
export function createDatasetDeps(config: CreateDatasetConfig): CreateDatasetDeps {
  return {
    repo: new DynamoDatasetRepository(documentClient, config.DATASETS_TABLE),
    catalog: config.MODEL_CATALOG,
    modelPolicy: config.MODEL_POLICY,
    now: () => new Date(),
    newId: () => newObjectId(),
  };
}
