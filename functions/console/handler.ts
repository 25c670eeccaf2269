import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { consoleEnvSchema, ENV, loadConfig } from '#shared/config';
import { jsonResponse } from '#shared/http';
import {
  CONSOLE_ASSET_RESOURCE,
  CONSOLE_PAGE_FILE,
  consoleAssets,
  consoleResponse,
  readConsolePage,
} from './console.ts';

const config = loadConfig(consoleEnvSchema);
const pageFile = config[ENV.consolePageFile] ?? fileURLToPath(new URL(`./${CONSOLE_PAGE_FILE}`, import.meta.url));
// Read once per cold start: the bundling step wrote the built page beside this bundle, the assets beside it.
const page = readConsolePage(pageFile);
const asset = consoleAssets(dirname(pageFile));

/**
 * GET /console and GET /console/assets/{name}, without an authorizer: the page and its SQLite worker and
 * WebAssembly build hold no data and no secret.
 */
export const handler = async (
  event?: Pick<APIGatewayProxyEvent, 'resource' | 'pathParameters'>,
): Promise<APIGatewayProxyResult> => {
  if (event?.resource !== CONSOLE_ASSET_RESOURCE) return consoleResponse(page);
  const found = asset(event.pathParameters?.name ?? '');
  return found ?? jsonResponse(404, { success: false, message: 'No such console asset' });
};
