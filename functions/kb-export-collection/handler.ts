import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { documentClient } from '#shared/clients/dynamodb';
import { ENV, kbExportEnvSchema, loadConfig } from '#shared/config';
import { datasetBody, datasetCaller, datasetErrorResponse, withCors } from '#shared/envelopes/dataset';
import { streamifyResponse, withResponseHead, writeWholeResponse } from '#shared/lambda-streaming';
import { createLogger } from '#shared/logger';
import { KbContentRepository } from '#shared/repositories/kb-content';
import { collectionIdSchema } from '#shared/schemas/kb-content';
import { exportCollection } from './export-collection.ts';

/*
 * POST /api/core/dataset/collection/export behind the authorizer (docs/knowledge-base-api.md, "Export"): a streaming
 * function, since a collection's CSV (up to 50,000 chunks) may be far larger than a buffered answer's 6 MB. Anything
 * wrong is found before the first byte and answered in the API's envelope; the CSV is then written as it is read,
 * each write waiting for the client (back-pressure). A failure after the head can only cut the CSV short: it is
 * logged, without the collection's text.
 */
const config = loadConfig(kbExportEnvSchema);
const logger = createLogger('kb-export-collection', config.LOG_LEVEL);
// The datasets table: a deleted knowledge base's collections, purged in the background, are not exported meanwhile.
const deps = {
  content: new KbContentRepository(documentClient, config[ENV.kbContentTable], {
    datasetsTable: config[ENV.datasetsTable],
  }),
};

export const handler = streamifyResponse(async (event, responseStream, context) => {
  if (context) logger.addContext(context);
  let csv: AsyncIterable<string>;
  try {
    const caller = datasetCaller(event);
    csv = await exportCollection({ body: datasetBody(event, collectionIdSchema), caller }, deps);
  } catch (error) {
    await writeWholeResponse(responseStream, withCors(datasetErrorResponse(error, logger), event));
    return;
  }
  const { headers } = withCors({ statusCode: 200, body: '' }, event);
  const out = withResponseHead(responseStream, {
    statusCode: 200,
    headers: {
      ...Object.fromEntries(Object.entries(headers ?? {}).map(([k, v]) => [k, String(v)])),
      // FastGPT's headers; its web client names the file itself.
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': 'attachment; filename=data.csv',
    },
  });
  try {
    await pipeline(Readable.from(csv), out);
  } catch (error) {
    logger.error('The export stopped before its end', { error: error instanceof Error ? error.name : typeof error });
  }
});
