import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { contractFor, contractMismatches, mergeTopics, ROUTE_CONTRACTS, routeKey } from '#openapi/contracts';
import { buildOpenApiDocument, DOCUMENT_FILES, documentText, staleDocuments } from '#openapi/document';
import { APIS, type ApiDef, type ApiName } from '#shared/routes';

type Json = Record<string, unknown>;
const ROOT = join(import.meta.dirname, '..', '..');
const readRepoFile = (file: string) =>
  existsSync(join(ROOT, file)) ? readFileSync(join(ROOT, file), 'utf8') : undefined;
const API_NAMES = Object.keys(DOCUMENT_FILES) as ApiName[];

describe('the committed OpenAPI documents', () => {
  it('are what `npm run openapi` generates from the route table and the zod schemas now', () => {
    // The message names the command: a schema changed without regenerating fails here.
    expect(staleDocuments(readRepoFile), 'run `npm run openapi`').toEqual([]);
  });

  it.each(API_NAMES)('%s validates against the OpenAPI 3.1 schema', async (api) => {
    const validator = new Validator();

    const result = await validator.validate(JSON.parse(readRepoFile(DOCUMENT_FILES[api]) ?? '{}'));

    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('would be rejected by the validator if a response lacked its description', async () => {
    const document = JSON.parse(readRepoFile(DOCUMENT_FILES.dataset) ?? '{}');
    delete document.paths['/api/core/dataset/create'].post.responses['200'].description;

    const result = await new Validator().validate(document);

    expect(result.valid).toBe(false);
  });
});

describe('the staleness check', () => {
  it('names `npm run openapi` when a committed copy differs from the generated one', () => {
    const current = (file: string) => documentText(API_NAMES.find((api) => DOCUMENT_FILES[api] === file)!);
    const edited = (file: string) =>
      file === DOCUMENT_FILES.proxy ? current(file).replace('"dsn"', '"dataSourceName"') : current(file);

    expect(staleDocuments(edited)).toEqual([
      'openapi/proxy.json is stale: the route table or a zod schema changed; run `npm run openapi` and commit the result',
    ]);
  });

  it("covers the relay's document too", () => {
    const current = (file: string) => documentText(API_NAMES.find((api) => DOCUMENT_FILES[api] === file)!);
    const edited = (file: string) =>
      file === DOCUMENT_FILES.relay ? current(file).replace('"messages"', '"prompt"') : current(file);

    expect(API_NAMES).toEqual(['dataset', 'proxy', 'relay']);
    expect(staleDocuments(edited)).toEqual([
      'openapi/relay.json is stale: the route table or a zod schema changed; run `npm run openapi` and commit the result',
    ]);
  });

  it('reports a missing copy', () => {
    expect(staleDocuments(() => undefined)).toHaveLength(API_NAMES.length);
  });
});

describe('route contracts', () => {
  it('exist for every route of the route table, and only for its routes', () => {
    expect(contractMismatches()).toEqual([]);
  });

  it('are required: a route added without one is reported and fails the generator', () => {
    const extra: ApiDef = {
      ...APIS.dataset,
      routes: [...APIS.dataset.routes, { method: 'GET', path: '/api/core/dataset/new', function: 'create-dataset' }],
    };

    expect(contractMismatches([extra, APIS.proxy])).toEqual([
      'dataset: GET /api/core/dataset/new has no contract in openapi/contracts.ts',
    ]);
    expect(() => contractFor('dataset', { method: 'GET', path: '/api/core/dataset/new' })).toThrow(
      /GET \/api\/core\/dataset\/new of the dataset API has no contract/,
    );
  });

  it('are merged from the topic files, and a route two topics both describe is refused', () => {
    const listChannels = ROUTE_CONTRACTS.proxy['GET /api/channels'];
    if (!listChannels) throw new Error('GET /api/channels has no contract');

    const merged = mergeTopics([{ proxy: { 'GET /api/channels': listChannels } }, { relay: {} }]);

    expect(merged.proxy).toEqual({ 'GET /api/channels': listChannels });
    expect(() =>
      mergeTopics([{ proxy: { 'GET /api/channels': listChannels } }, { proxy: { 'GET /api/channels': listChannels } }]),
    ).toThrow(/GET \/api\/channels of the proxy API has two contracts/);
  });

  it('give every operation of a document its own operationId', () => {
    for (const api of API_NAMES) {
      const ids = APIS[api].routes.map((route) => contractFor(api, route).operationId);
      expect(new Set(ids).size).toBe(ids.length);
    }
  });
});

describe('a generated document', () => {
  const operations = (api: ApiName) =>
    APIS[api].routes.map((route) => ({
      route,
      operation: ((buildOpenApiDocument(api).paths as Json)[route.path] as Json)[route.method.toLowerCase()] as Json,
    }));

  it('describes every route, the public ones without the bearer scheme the others require', () => {
    for (const api of API_NAMES) {
      const document = buildOpenApiDocument(api);
      expect(document.security).toEqual([{ bearer: [] }]);
      expect(document.components).toMatchObject({ securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } });
      for (const { route, operation } of operations(api)) {
        expect(operation, routeKey(route)).toBeDefined();
        if (route.auth === 'none') expect(operation.security).toEqual([]);
        else expect(operation.security).toBeUndefined();
      }
    }
  });

  it("documents the gateway's 401 only on routes behind the authorizer, and 429 and 500 everywhere", () => {
    for (const api of API_NAMES) {
      for (const { route, operation } of operations(api)) {
        const statuses = Object.keys(operation.responses as Json);
        expect(statuses).toEqual(expect.arrayContaining(['200', '413', '429', '500', '504']));
        expect(statuses.includes('401')).toBe(route.auth !== 'none');
      }
    }
  });

  it('gives each knowledge-base error status the codes of its FastGPT error rows, and nothing else', () => {
    const create = operations('dataset').find(({ route }) => route.function === 'create-dataset')?.operation;
    const responses = (create?.responses ?? {}) as Record<string, { content: Record<string, { schema: Json }> }>;
    const codes = (status: string) => {
      const schema = responses[status]?.content['application/json']?.schema ?? {};
      const variants = (schema.anyOf as Json[] | undefined) ?? [schema];
      return variants.map((v) => ((v.properties as Record<string, Json>).code as Json).const);
    };

    expect(codes('400').sort()).toEqual([501010, 507000, 507004]);
    expect(codes('404')).toEqual([501002]);
    expect(codes('401').sort()).toEqual([403, 514]);
  });

  it('carries request and response examples that satisfy their own schemas', () => {
    // A cell of the rows import is `type: [string, number, null]`: a union of types, valid JSON Schema 2020-12.
    const ajv = new Ajv2020({ strict: true, allowUnionTypes: true });
    addFormats.default(ajv);
    let checked = 0;
    for (const api of API_NAMES) {
      for (const { route, operation } of operations(api)) {
        const media = [
          ((operation.requestBody as Json | undefined)?.content as Json | undefined)?.['application/json'],
          ...Object.values(operation.responses as Record<string, Json>).map(
            (r) => (r.content as Json | undefined)?.['application/json'],
          ),
        ] as (Json | undefined)[];
        for (const m of media) {
          if (m?.example === undefined) continue;
          const validate = ajv.compile(m.schema as Json);
          expect(validate(m.example), `${routeKey(route)}: ${ajv.errorsText(validate.errors)}`).toBe(true);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThanOrEqual(4);
  });
});

describe("the relay API's document", () => {
  const document = buildOpenApiDocument('relay');
  const operation = (path: string, method: string) =>
    ((document.paths as Json)[path] as Json)[method] as { responses: Record<string, Json>; requestBody?: Json };
  const schemaOf = (path: string, method: string, status: string, type = 'application/json') =>
    (((operation(path, method).responses[status] as Json).content as Json)[type] as Json).schema as Json;
  const ajv = new Ajv2020({ strict: true });
  addFormats.default(ajv);
  const valid = (schema: Json, value: unknown) => ajv.compile(schema)(value);
  const requestSchema = (path: string) =>
    (((operation(path, 'post').requestBody as Json).content as Json)['application/json'] as Json).schema as Json;
  const ENVELOPE = { error: { message: 'm', type: 'invalid_request_error', param: null, code: null } };

  it('documents the /v1 calls behind the relay key and its own document without one', () => {
    expect(Object.keys(document.paths as Json).sort()).toEqual([
      '/v1/chat/completions',
      '/v1/embeddings',
      '/v1/messages',
      '/v1/messages/count_tokens',
      '/v1/models',
      '/v1/openapi.json',
      '/v1/responses',
    ]);
    expect(((document.components as Json).securitySchemes as Json).bearer).toMatchObject({
      type: 'http',
      scheme: 'bearer',
      description: expect.stringContaining('relay key'),
    });
  });

  it.each(['/v1/chat/completions', '/v1/embeddings'])(
    '%s takes an open body with model, answers JSON (a chat an event stream too), every error in the envelope, and a default',
    (path) => {
      const request = requestSchema(path);
      expect(request.required).toEqual(expect.arrayContaining(['model']));
      expect(request.additionalProperties).toEqual({});
      expect(Object.keys(operation(path, 'post').responses)).toEqual([
        '200',
        '400',
        '401',
        '403',
        '404',
        '413',
        '429',
        '500',
        '502',
        '503',
        '504',
        'default',
      ]);
      // A chat may stream; embeddings never do (OpenAI's take no `stream`).
      expect(Object.keys(operation(path, 'post').responses['200']?.content as Json)).toEqual(
        path === '/v1/chat/completions' ? ['application/json', 'text/event-stream'] : ['application/json'],
      );
      for (const status of ['400', '401', '403', '404', '413', '429', '500', '502', '503', '504', 'default']) {
        const schema = schemaOf(path, 'post', status);
        expect(valid(schema, ENVELOPE), status).toBe(true);
        expect(valid(schema, { success: false, message: 'm' }), status).toBe(false);
      }
      // An upstream's envelope with fields of its own (Azure's `innererror`) is passed on as it is.
      expect(valid(schemaOf(path, 'post', 'default'), { error: { message: 'm', code: 'x', innererror: {} } })).toBe(
        true,
      );
    },
  );

  it('requires messages of a chat and input of embeddings, and lets unknown fields through', () => {
    const body = requestSchema;
    expect(valid(body('/v1/chat/completions'), { model: 'm', messages: [], temperature: 0, x_vendor: {} })).toBe(true);
    expect(valid(body('/v1/chat/completions'), { model: 'm' })).toBe(false);
    expect(valid(body('/v1/embeddings'), { model: 'm', input: 'text', user: 'u' })).toBe(true);
    expect(valid(body('/v1/embeddings'), { model: 'm' })).toBe(false);
  });

  it('describes the model list the relay writes exactly, and the upstream-made answers openly', () => {
    const models = schemaOf('/v1/models', 'get', '200');
    expect(valid(models, { object: 'list', data: [{ id: 'a', object: 'model', created: 0, owned_by: 'o' }] })).toBe(
      true,
    );
    expect(valid(models, { object: 'list', data: [], extra: 1 })).toBe(false);
    const chat = schemaOf('/v1/chat/completions', 'post', '200');
    expect(
      valid(chat, {
        id: 'c',
        object: 'chat.completion',
        created: 1,
        model: 'm',
        choices: [{ index: 0, message: { role: 'assistant', content: 'hi', annotations: [] }, finish_reason: 'stop' }],
        service_tier: 'default',
        system_fingerprint: 'fp',
      }),
    ).toBe(true);
    expect(valid(chat, { object: 'list', data: [] })).toBe(false);
  });
});
