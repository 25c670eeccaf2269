import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { ApiName } from '#shared/routes';
import { API_NAME_STAGE_VARIABLE } from '#shared/routes';
import dataset from '../../openapi/dataset.json' with { type: 'json' };
import proxy from '../../openapi/proxy.json' with { type: 'json' };
import relay from '../../openapi/relay.json' with { type: 'json' };
import { requestBaseUrl } from './base-url.ts';

// The committed documents, bundled: `npm run openapi` writes them and a test keeps them current.
const DOCUMENTS: Readonly<Record<ApiName, Record<string, unknown>>> = { dataset, proxy, relay };

/** GET /openapi.json (the relay's: /v1/openapi.json) of any API, without the authorizer: the API's OpenAPI document, its `servers` the caller's base URL. */
export const handler = async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
  const api = event.stageVariables?.[API_NAME_STAGE_VARIABLE];
  // A stage without the variable is a deployment defect: failing makes API Gateway answer its 5xx in the API's envelope.
  if (api !== 'dataset' && api !== 'proxy' && api !== 'relay')
    throw new Error(`Stage variable ${API_NAME_STAGE_VARIABLE} is not set`);
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
