import type { APIGatewayProxyEvent } from 'aws-lambda';
import { kbContentEnvSchema, loadConfig } from '#shared/config';
import { datasetBody, datasetHandler, datasetQuery } from '#shared/envelopes/dataset';
import { contentWiring } from '#shared/kb/wiring';
import { createLogger } from '#shared/logger';
import { idField } from '#shared/schemas/dataset-fields';
import { deleteCollectionsBodySchema } from '#shared/schemas/kb-content';
import * as z from '#shared/zod';
import { deleteCollection } from './kb-delete-collection.ts';

const config = loadConfig(kbContentEnvSchema);
const logger = createLogger('kb-delete-collection', config.LOG_LEVEL);
const deps = contentWiring(config);
const querySchema = z.object({ id: z.optional(idField('id')) });

/** The ids named: `?id=` (FastGPT's documented call) and, when a body is sent, its `collectionIds`. */
function idsOf(event: APIGatewayProxyEvent): string[] {
  const { id } = datasetQuery(event, querySchema);
  const hasBody = event.body !== null && event.body !== undefined && event.body.trim() !== '';
  const body = hasBody ? datasetBody(event, deleteCollectionsBodySchema) : {};
  return [...(id ? [id] : []), ...(body.collectionIds ?? [])];
}

/** DELETE /api/core/dataset/collection/delete behind the authorizer. */
export const handler = datasetHandler(logger, (event, caller) => deleteCollection({ ids: idsOf(event), caller }, deps));
