/**
 * Builds each API's OpenAPI 3.1 document from the route table (shared/routes.ts), the route
 * contracts (openapi/contracts.ts) and the gateway responses (shared/gateway-responses.ts), with
 * zod 4's JSON Schema output: no schema is written twice. `npm run openapi` writes the results to
 * openapi/<api>.json; a test fails when those copies are stale.
 */
import * as z from 'zod';
import { GATEWAY_RESPONSES, type GatewayResponseType } from '#shared/gateway-responses';
import { APIS, type ApiName, type RouteDef } from '#shared/routes';
import { contractFor, type ResponseContract } from './contracts.ts';

type Json = Record<string, unknown>;

/** Version of the documents; bump with a change of either API's contract. */
export const API_VERSION = '1.0.0';

/**
 * The APIs this module documents: all three. The relay API (`/v1`) speaks OpenAI's protocol: its document follows
 * OpenAI's API reference as OpenAI's Node SDK types it (shared/schemas/relay.ts), open where the relay passes bodies on.
 */

/** Where each API's committed document lives, relative to the repository root. */
export const DOCUMENT_FILES: Readonly<Record<ApiName, string>> = {
  dataset: 'openapi/dataset.json',
  proxy: 'openapi/proxy.json',
  relay: 'openapi/relay.json',
};

const TITLES: Readonly<Record<ApiName, { title: string; description: string; security: string }>> = {
  dataset: {
    title: 'Knowledge-base API',
    description:
      'FastGPT-compatible knowledge-base calls. Every body is the FastGPT envelope `{code, statusText, message, data}`: `code` is 200 on success; clients branch on the body `code` of an error.',
    security: 'An access token (`kb-…`), made with `npm run tokens -- create`',
  },
  proxy: {
    title: 'Channel proxy API',
    description:
      'Imports channels from a legacy model gateway. Every body is `{"success": true, "data": …}` or `{"success": false, "message": …}`.',
    security: 'The admin key (Secrets Manager; locally `adminKey` in `DATA_DIR/credentials.json`)',
  },
  relay: {
    title: 'OpenAI-compatible relay API',
    description:
      'OpenAI\'s chat completions, embeddings and model list over the imported channels, for OpenAI\'s SDKs and any OpenAI-compatible client (base URL `{relay_url}/v1`). Request bodies are passed on to the channel, so fields this document does not name are welcome. Every error is OpenAI\'s envelope `{"error": {"message", "type", "param", "code"}}`; an upstream\'s error is passed on with the upstream\'s status. Follows OpenAI\'s API reference as typed by openai-node 6.49.0.',
    security: 'A relay key (`sk-…`), made with `npm run tokens -- relay create`',
  },
};

// Gateway responses that can answer any route, and those only a route behind the authorizer gets.
const ANY_ROUTE: readonly GatewayResponseType[] = [
  'REQUEST_TOO_LARGE',
  'THROTTLED',
  'DEFAULT_5XX',
  'INTEGRATION_TIMEOUT',
];
const AUTHORIZED_ROUTE: readonly GatewayResponseType[] = [
  'UNAUTHORIZED',
  'ACCESS_DENIED',
  'AUTHORIZER_FAILURE',
  'AUTHORIZER_CONFIGURATION_ERROR',
];
const GATEWAY_DESCRIPTIONS: Readonly<Record<GatewayResponseType, string>> = {
  UNAUTHORIZED: 'no or malformed `Authorization` header (gateway)',
  ACCESS_DENIED: 'unknown, expired or wrong-kind token (gateway)',
  MISSING_AUTHENTICATION_TOKEN: 'no such route (gateway)',
  THROTTLED: 'throttled by the stage (gateway)',
  REQUEST_TOO_LARGE: "body over API Gateway's payload limit (gateway)",
  AUTHORIZER_FAILURE: 'the authorizer could not verify the token (gateway; fails closed)',
  AUTHORIZER_CONFIGURATION_ERROR: 'the authorizer returned an invalid policy (gateway; fails closed)',
  INTEGRATION_TIMEOUT: 'the function did not answer in time (gateway)',
  DEFAULT_4XX: 'bad request (gateway)',
  DEFAULT_5XX: 'unexpected error; the message is generic (gateway or function)',
};

/**
 * The zod schema of a gateway response's body: its fixed fields as literals, `message` any text
 * (a gateway response's body is data in shared/gateway-responses.ts, so it is derived, not written).
 */
export function gatewayResponseBodySchema(api: ApiName, type: GatewayResponseType): z.ZodType {
  const { body } = GATEWAY_RESPONSES[api][type];
  const shape = Object.fromEntries(
    Object.entries(body).map(([key, value]) => [
      key,
      key === 'message' ? z.string() : value === null ? z.null() : z.literal(value as string | number | boolean),
    ]),
  );
  return z.strictObject(shape);
}

/** The gateway's own responses a route can receive. */
export function gatewayResponsesFor(api: ApiName, route: RouteDef): ResponseContract[] {
  const types = route.auth === 'none' ? ANY_ROUTE : [...AUTHORIZED_ROUTE, ...ANY_ROUTE];
  return types.map((type) => ({
    status: GATEWAY_RESPONSES[api][type].statusCode,
    description: GATEWAY_DESCRIPTIONS[type],
    body: gatewayResponseBodySchema(api, type),
  }));
}

/** zod -> JSON Schema (2020-12, OpenAPI 3.1's dialect), without the `$schema` line. */
function jsonSchema(schema: z.core.$ZodType, io: 'input' | 'output'): Json {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, target: 'draft-2020-12' }) as Json;
  return rest;
}

function parameters(where: 'query' | 'path', schema: z.core.$ZodObject | undefined): Json[] {
  if (!schema) return [];
  const json = jsonSchema(schema, 'input') as { properties?: Record<string, Json>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, property]) => {
    const { description, ...rest } = property;
    return {
      name,
      in: where,
      required: where === 'path' || (json.required ?? []).includes(name),
      ...(typeof description === 'string' ? { description } : {}),
      schema: rest,
    };
  });
}

function mediaType(response: ResponseContract): Json {
  const types = response.contentTypes ?? [response.contentType ?? 'application/json'];
  return Object.fromEntries(
    types.map((type) => [
      type,
      {
        schema: jsonSchema(response.body, 'output'),
        ...(response.example !== undefined ? { example: response.example } : {}),
      },
    ]),
  );
}

/** Several responses of one status and media type: their bodies as `anyOf` (duplicates dropped). */
function mergedMediaType(group: readonly ResponseContract[]): Json {
  const schemas = [...new Set(group.map((r) => JSON.stringify(jsonSchema(r.body, 'output'))))].map(
    (text) => JSON.parse(text) as Json,
  );
  return { schema: schemas.length === 1 ? schemas[0] : { anyOf: schemas } };
}

/** Statuses in order, OpenAPI's `default` (any status not listed) last. */
const statusOrder = (status: number | 'default') => (status === 'default' ? Number.POSITIVE_INFINITY : status);

/**
 * Responses of one status share an entry: their descriptions a list, and per media type their bodies `anyOf`
 * (duplicates dropped). A status answered in two media types (the relay's JSON or event stream) has both.
 */
function responses(all: readonly ResponseContract[]): Json {
  const byStatus = new Map<number | 'default', ResponseContract[]>();
  for (const response of all) byStatus.set(response.status, [...(byStatus.get(response.status) ?? []), response]);
  const entries = [...byStatus.entries()].sort(([a], [b]) => statusOrder(a) - statusOrder(b));
  return Object.fromEntries(
    entries.map(([status, group]) => {
      const [first] = group as [ResponseContract, ...ResponseContract[]];
      if (group.length === 1) return [String(status), { description: first.description, content: mediaType(first) }];
      const byType = new Map<string, ResponseContract[]>();
      for (const response of group) {
        const type = response.contentType ?? 'application/json';
        byType.set(type, [...(byType.get(type) ?? []), response]);
      }
      return [
        String(status),
        {
          description: group.map((r) => `- ${r.description}`).join('\n'),
          content: Object.fromEntries(
            [...byType.entries()].map(([type, members]) => [
              type,
              members.length === 1 ? mediaType(members[0] as ResponseContract)[type] : mergedMediaType(members),
            ]),
          ),
        },
      ];
    }),
  );
}

function operation(apiName: ApiName, route: RouteDef): Json {
  const contract = contractFor(apiName, route);
  const request = contract.request ?? {};
  const params = [...parameters('path', request.path), ...parameters('query', request.query)];
  return {
    operationId: contract.operationId,
    summary: contract.summary,
    ...(contract.description ? { description: contract.description } : {}),
    ...(route.auth === 'none' ? { security: [] } : {}),
    ...(params.length > 0 ? { parameters: params } : {}),
    ...(request.body
      ? {
          requestBody: {
            required: true,
            content: {
              [request.bodyContentType ?? 'application/json']: {
                schema: jsonSchema(request.body, 'input'),
                ...(request.bodyExample !== undefined ? { example: request.bodyExample } : {}),
              },
            },
          },
        }
      : {}),
    responses: responses([
      contract.success,
      ...(contract.stream ? [contract.stream] : []),
      ...contract.errors,
      ...gatewayResponsesFor(apiName, route),
    ]),
  };
}

/** The OpenAPI 3.1 document of one API. */
export function buildOpenApiDocument(apiName: ApiName): Json {
  const api = APIS[apiName];
  const paths: Record<string, Json> = {};
  for (const route of api.routes) {
    paths[route.path] = { ...paths[route.path], [route.method.toLowerCase()]: operation(apiName, route) };
  }
  const { title, description, security } = TITLES[apiName];
  return {
    openapi: '3.1.1',
    info: { title, version: API_VERSION, description },
    servers: [
      { url: 'http://127.0.0.1:3000', description: '`npm start`; a served copy names the host it was fetched from' },
    ],
    security: [{ bearer: [] }],
    paths,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: security } },
    },
  };
}

/** The committed file's exact text for a document (what `npm run openapi` writes). */
export function documentText(apiName: ApiName): string {
  return `${JSON.stringify(buildOpenApiDocument(apiName), null, 2)}\n`;
}

/**
 * One line per committed document that differs from what the route table and schemas generate now
 * (`read` returns a file's text, or undefined when it is missing).
 */
export function staleDocuments(read: (file: string) => string | undefined): string[] {
  return (Object.keys(DOCUMENT_FILES) as ApiName[]).flatMap((api) => {
    const file = DOCUMENT_FILES[api];
    const committed = read(file);
    if (committed === documentText(api)) return [];
    const state = committed === undefined ? 'is missing' : 'is stale';
    return [`${file} ${state}: the route table or a zod schema changed; run \`npm run openapi\` and commit the result`];
  });
}
