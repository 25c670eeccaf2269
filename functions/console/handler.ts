import { fileURLToPath } from 'node:url';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { consoleEnvSchema, ENV, loadConfig } from '#shared/config';
import { CONSOLE_PAGE_FILE, consoleResponse, readConsolePage } from './console.ts';

const config = loadConfig(consoleEnvSchema);
// Read once per cold start: the bundling step wrote the built page beside this bundle.
const page = readConsolePage(
  config[ENV.consolePageFile] ?? fileURLToPath(new URL(`./${CONSOLE_PAGE_FILE}`, import.meta.url)),
);

/** GET /console, without an authorizer: the page itself holds no data and no secret. */
export const handler = async (): Promise<APIGatewayProxyResult> => consoleResponse(page);
