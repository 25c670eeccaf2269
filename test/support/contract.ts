/**
 * Checks a response of the local gateway against the OpenAPI document of its API (the committed
 * openapi/<api>.json, which a test keeps equal to the generated one): the status must be documented
 * for the route (or fall under its `default` response, when it has one), the content type too, and a JSON body must validate against the documented schema
 * (ajv, JSON Schema 2020-12, OpenAPI 3.1's dialect). A response to no route must be one of the API's
 * gateway responses.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { GatewayExchange } from '#infra/local/gateway';
import { DOCUMENT_FILES } from '#openapi/document';
import { GATEWAY_RESPONSES } from '#shared/gateway-responses';
import type { ApiName } from '#shared/routes';

type Json = Record<string, unknown>;
interface Operation {
  responses?: Record<string, { content?: Record<string, { schema?: Json }> }>;
}
/** The document of each API; an API left out goes unchecked (a test's own gateway may check one API only). */
export type OpenApiDocuments = Readonly<Partial<Record<ApiName, Json>>>;

const ROOT = join(import.meta.dirname, '..', '..');

/** The committed documents: what the stack and `npm start` serve. */
export function committedDocuments(): Readonly<Record<ApiName, Json>> {
  const read = (api: ApiName) => JSON.parse(readFileSync(join(ROOT, DOCUMENT_FILES[api]), 'utf8')) as Json;
  return { dataset: read('dataset'), proxy: read('proxy'), relay: read('relay') };
}

const headerValue = (headers: GatewayExchange['headers'], name: string): string | undefined => {
  const value = Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
  return Array.isArray(value) ? value[0] : value;
};

/** A checker over fixed documents; compiled schemas are cached per route, status and media type. */
export function contractChecker(documents: OpenApiDocuments = committedDocuments()) {
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  addFormats.default(ajv);
  const compiled = new Map<string, ValidateFunction>();

  return function violations(exchange: GatewayExchange): string[] {
    const { api, route, method, statusCode } = exchange;
    const where = `${method} ${exchange.path} -> ${statusCode} (${api} API)`;
    const text = exchange.body.toString('utf8');

    // A CORS preflight of an API that answers them (shared/cors.ts): 200 and no body, as API Gateway's mock answers.
    if (!route && method === 'OPTIONS' && statusCode === 200 && text === '') return [];
    if (!route) {
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        return [`${where}: the body is not JSON`];
      }
      const known = Object.values(GATEWAY_RESPONSES[api]).some(
        (r) => r.statusCode === statusCode && isDeepStrictEqual(r.body, body),
      );
      return known ? [] : [`${where}: no route matched, and this is none of the API's gateway responses`];
    }

    const document = documents[api];
    if (document === undefined) return [];
    const paths = (document.paths ?? {}) as Record<string, Record<string, Operation>>;
    const operation = paths[route.path]?.[method.toLowerCase()];
    if (!operation) {
      return [
        `${where}: ${method} ${route.path} is not in the document; add its contract to openapi/contracts.ts and run \`npm run openapi\` (docs/openapi.md, "Adding a route")`,
      ];
    }
    // OpenAPI's `default` stands for every status the operation does not list (the relay's upstream errors): used
    // only when the document has it, so an operation without one still fails on an undocumented status.
    const listed = operation.responses?.[String(statusCode)];
    const status = listed ? String(statusCode) : 'default';
    const response = listed ?? operation.responses?.default;
    if (!response) {
      const documented = Object.keys(operation.responses ?? {}).join(', ');
      return [
        `${where}: status ${statusCode} is not documented for ${method} ${route.path} (documented: ${documented})`,
      ];
    }
    const contentType = (headerValue(exchange.headers, 'content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    const media = response.content?.[contentType];
    if (!media) {
      const documented = Object.keys(response.content ?? {}).join(', ');
      return [`${where}: content type "${contentType}" is not documented (documented: ${documented})`];
    }
    if (!contentType.endsWith('json') || !media.schema) return [];
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return [`${where}: the body is not JSON`];
    }
    const key = `${api} ${method} ${route.path} ${status} ${contentType}`;
    let validate = compiled.get(key);
    if (!validate) {
      validate = ajv.compile(media.schema);
      compiled.set(key, validate);
    }
    if (validate(body)) return [];
    return [`${where}: ${ajv.errorsText(validate.errors, { dataVar: 'body' })}`];
  };
}
