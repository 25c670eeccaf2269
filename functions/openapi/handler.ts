import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { API_NAME_STAGE_VARIABLE, type ApiName } from '#shared/routes';
import dataset from '../../openapi/dataset.json' with { type: 'json' };
import proxy from '../../openapi/proxy.json' with { type: 'json' };

// The committed documents, bundled: `npm run openapi` writes them and a test keeps them current.
const DOCUMENTS: Readonly<Record<ApiName, Record<string, unknown>>> = { dataset, proxy };

const HOST = /^(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;
const PATH_PREFIX = /^(?:\/[A-Za-z0-9._~-]+)*$/;

const header = (event: APIGatewayProxyEvent, name: string): string | undefined =>
  Object.entries(event.headers ?? {}).find(([key]) => key.toLowerCase() === name)?.[1];

/**
 * The base URL the caller reached this API under: scheme and host of the request, plus what precedes
 * the route in the request path (the stage, on an execute-api host). Undefined when anything looks off,
 * so a forged Host header can never put arbitrary text into the document.
 */
export function requestBaseUrl(event: APIGatewayProxyEvent): string | undefined {
  const host = header(event, 'host');
  const proto = header(event, 'x-forwarded-proto') ?? 'https';
  const fullPath = event.requestContext?.path ?? event.path;
  if (!host || !HOST.test(host) || (proto !== 'https' && proto !== 'http')) return undefined;
  if (!fullPath.endsWith(event.path)) return undefined;
  const prefix = fullPath.slice(0, fullPath.length - event.path.length);
  if (!PATH_PREFIX.test(prefix)) return undefined;
  return `${proto}://${host}${prefix}`;
}

/** GET /openapi.json of either API, without the authorizer: the API's OpenAPI document, its `servers` the caller's base URL. */
export const handler = async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
  const api = event.stageVariables?.[API_NAME_STAGE_VARIABLE];
  // A stage without the variable is a deployment defect: failing makes API Gateway answer its 5xx in the API's envelope.
  if (api !== 'dataset' && api !== 'proxy') throw new Error(`Stage variable ${API_NAME_STAGE_VARIABLE} is not set`);
  const document = DOCUMENTS[api];
  const base = requestBaseUrl(event);
  return {
    statusCode: 200,
    headers: {
      'Content-Type': 'application/json; charset=utf-8',
      // Public and the same for everyone: browser-based API tools on other origins may read it.
      'Access-Control-Allow-Origin': '*',
      'Cache-Control': 'public, max-age=300',
    },
    body: JSON.stringify(base ? { ...document, servers: [{ url: base }] } : document),
  };
};
