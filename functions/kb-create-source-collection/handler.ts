import type { APIGatewayProxyEvent } from 'aws-lambda';
import { datasetsEnvSchema, loadConfig } from '#shared/config';
import { datasetBody, datasetHandler } from '#shared/envelopes/dataset';
import { datasetErrors } from '#shared/errors';
import type { CallerContext } from '#shared/http';
import { newObjectId } from '#shared/ids';
import { linkEnvSchema, SOURCES_ENV, sourceStoreEnvSchema } from '#shared/kb/sources/config';
import { MultipartError, parseMultipart } from '#shared/kb/sources/multipart';
import { createLinkBodySchema } from '#shared/kb/sources/settings';
import { sourceStoreFor } from '#shared/kb/sources/store-wiring';
import { sourceCollectionsFromEnv } from '#shared/kb/wiring';
import { createLogger } from '#shared/logger';
import * as z from '#shared/zod';
import { createFileCollection } from './create-file.ts';
import { createLinkCollection } from './create-link.ts';

const config = loadConfig(z.extend(z.extend(datasetsEnvSchema, sourceStoreEnvSchema.shape), linkEnvSchema.shape));
const logger = createLogger('kb-create-source-collection', config.LOG_LEVEL);
// The collections core (shared/kb/collections.ts): stores the collection and queues its training.
const collections = sourceCollectionsFromEnv();
const store = sourceStoreFor(config);
const allowedHosts = config[SOURCES_ENV.linkAllowedHosts];

export const LINK_PATH = '/api/core/dataset/collection/create/link';

async function createFile(event: APIGatewayProxyEvent, caller: CallerContext) {
  const upload = await parseMultipart(event).catch((error: unknown) => {
    throw error instanceof MultipartError ? datasetErrors.invalidParams(error.message) : error;
  });
  return createFileCollection({ upload, caller }, { collections, store, newId: () => newObjectId() });
}

/**
 * POST /api/core/dataset/collection/create/link (JSON) and …/create/localFile (multipart/form-data) behind the
 * authorizer: one function for both creates of a collection with a source (one core each), so the stack stays well
 * under CloudFormation's resource limit; the link call never touches the bucket the upload writes.
 */
export const handler = datasetHandler(logger, (event, caller) =>
  event.resource === LINK_PATH
    ? createLinkCollection({ body: datasetBody(event, createLinkBodySchema), caller }, { collections, allowedHosts })
    : createFile(event, caller),
);
