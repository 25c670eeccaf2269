import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { CHANNEL_ID_KEY_FILE_ENV, channelIdKeySource } from '#shared/channel-id-key';
import { ENV, loadConfig, logLevelEnvSchema } from '#shared/config';
import { datasetBody, datasetErrorResponse, datasetHandler, datasetQuery } from '#shared/envelopes/dataset';
import { sourceStoreEnvSchema } from '#shared/kb/sources/config';
import { publicBaseUrl, SOURCE_PATH, sourceLinkKey } from '#shared/kb/sources/source-links';
import { sourceStoreFor } from '#shared/kb/sources/store-wiring';
import { sourceCollectionsFromEnv } from '#shared/kb/wiring';
import { createLogger, type LambdaHandler, withLambdaContext } from '#shared/logger';
import * as z from '#shared/zod';
import {
  readCollection,
  readCollectionBodySchema,
  type ServeSourceDeps,
  serveSource,
  sourceQuerySchema,
} from './kb-read-collection.ts';

const config = loadConfig(
  z.extend(z.extend(logLevelEnvSchema, sourceStoreEnvSchema.shape), {
    [ENV.channelIdKeySecretId]: z.optional(z.string()),
  }),
);
const logger = createLogger('kb-read-collection', config.LOG_LEVEL);
const deploymentKey = channelIdKeySource({
  secretId: config[ENV.channelIdKeySecretId],
  credentialsFile: process.env[CHANNEL_ID_KEY_FILE_ENV],
});
let linkKey: Buffer | undefined;
const deps: ServeSourceDeps = {
  collections: sourceCollectionsFromEnv(),
  store: sourceStoreFor(config),
  linkKey: async () => {
    linkKey ??= sourceLinkKey(await deploymentKey());
    return linkKey;
  },
  now: () => new Date(),
};

const read = datasetHandler(logger, (event, caller) =>
  readCollection({ body: datasetBody(event, readCollectionBodySchema), caller, baseUrl: publicBaseUrl(event) }, deps),
);

/** The served link answers itself: a redirect or the file, or an error in the knowledge-base API's envelope. */
const source = withLambdaContext(logger, async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
  try {
    return await serveSource(datasetQuery(event, sourceQuerySchema).token, deps);
  } catch (error) {
    return datasetErrorResponse(error, logger);
  }
});

/**
 * POST /api/core/dataset/collection/read behind the authorizer, and GET /api/core/dataset/collection/source, the link it
 * answers, without one (the link's signature is the proof): one function, one grant set (read the collection and its
 * file).
 */
export const handler: LambdaHandler<APIGatewayProxyEvent, APIGatewayProxyResult> = (event, context) =>
  event.resource === SOURCE_PATH ? source(event, context) : read(event, context);
