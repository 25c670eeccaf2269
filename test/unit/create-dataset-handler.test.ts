import { ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createDatasetEnvSchema, loadConfig } from '#shared/config';
import { BUILT_IN_MODEL_CATALOG, parseModelCatalog } from '#shared/model-catalog';
import { proxyEvent } from '#test/support/events';
import { loadCreateDatasetHandler, loadHandler } from '#test/support/handler';
import { expectDatasetInternalError } from '#test/support/responses';

type HandlerModule = typeof import('#functions/create-dataset/handler');

const dynamo = mockClient(DynamoDBDocumentClient);
const HANDLER = '#functions/create-dataset/handler';
const dataset = { scope: 'dataset', teamId: 'team-a', tmbId: 'member-a', tokenId: 'token-a' };

function event(body: string | null, authorizer: Record<string, unknown> | null = dataset): APIGatewayProxyEvent {
  return proxyEvent('/api/core/dataset/create', body, authorizer);
}

describe('create-dataset handler', () => {
  let handler: HandlerModule['handler'];

  beforeAll(async () => {
    ({ handler } = await loadCreateDatasetHandler('datasets-unit'));
  });

  afterAll(() => {
    vi.unstubAllEnvs();
  });

  beforeEach(() => {
    dynamo.reset();
  });

  it('stores the dataset in the configured table for the caller and answers with its id', async () => {
    dynamo.on(PutCommand).resolves({});

    const response = await handler(event(JSON.stringify({ name: 'Docs', teamId: 'team-b' })));

    const body = JSON.parse(response.body);
    expect(response.statusCode).toBe(200);
    expect(body).toStrictEqual({
      code: 200,
      statusText: '',
      message: '',
      data: expect.stringMatching(/^[0-9a-f]{24}$/),
    });
    const put = dynamo.commandCalls(PutCommand)[0]?.args[0].input;
    expect(put?.TableName).toBe('datasets-unit');
    expect(put?.Item).toMatchObject({ id: body.data, teamId: 'team-a', tmbId: 'member-a', name: 'Docs' });
  });

  it.each([
    ['no authorizer context', null, 401, 403],
    ['an incomplete authorizer context', { scope: 'dataset', teamId: 'team-a' }, 401, 403],
    ['the admin scope', { ...dataset, scope: 'admin' }, 401, 514],
  ])('rejects a request with %s before touching the table', async (_case, authorizer, status, code) => {
    const response = await handler(event(JSON.stringify({ name: 'Docs' }), authorizer));

    expect(response.statusCode).toBe(status);
    expect(JSON.parse(response.body)).toMatchObject({ code, data: null });
    expect(dynamo.calls()).toHaveLength(0);
  });

  it.each([
    [
      'a body over 64 KiB',
      JSON.stringify({ name: 'Docs', intro: 'x'.repeat(64 * 1024) }),
      'The body must be at most 65536 bytes',
    ],
    ['a body that is not JSON', '{"name":', 'The body must be valid JSON'],
    ['an empty body', null, 'The body must be valid JSON'],
    ['an array body', '[{"name":"Docs"}]', 'The body must be a JSON object'],
    ['a string body', '"Docs"', 'The body must be a JSON object'],
  ])('rejects %s with invalidParams and writes nothing', async (_case, body, message) => {
    const response = await handler(event(body));

    expect(response.statusCode).toBe(400);
    expect(JSON.parse(response.body)).toStrictEqual({ code: 507000, statusText: 'invalidParams', message, data: null });
    expect(dynamo.calls()).toHaveLength(0);
  });

  it('rejects a parent of another team with 404 after a read scoped to the caller, and writes nothing', async () => {
    dynamo.on(GetCommand).resolves({});
    const parentId = 'abcdefabcdefabcdefabcdef';

    const response = await handler(event(JSON.stringify({ name: 'Child', parentId })));

    expect(response.statusCode).toBe(404);
    expect(JSON.parse(response.body)).toMatchObject({ code: 501002, statusText: 'unExistDataset' });
    expect(dynamo.commandCalls(GetCommand)[0]?.args[0].input.Key).toEqual({ teamId: 'team-a', id: parentId });
    expect(dynamo.commandCalls(PutCommand)).toHaveLength(0);
  });

  it('answers a DynamoDB throttling error with the generic 500 and no SDK text', async () => {
    dynamo.on(PutCommand).rejects(
      new ProvisionedThroughputExceededException({
        message: 'Rate of requests exceeds datasets-unit',
        $metadata: {},
      }),
    );

    const response = await handler(event(JSON.stringify({ name: 'Docs' })));

    expectDatasetInternalError(response);
  });
});

describe('create-dataset configuration', () => {
  afterAll(() => {
    vi.unstubAllEnvs();
  });

  it('fails at load with the variable name when MODEL_CATALOG is invalid', async () => {
    const loading = loadHandler(HANDLER, {
      DATASETS_TABLE: 'datasets-unit',
      MODEL_CATALOG: '{"vector":{"models":[],"default":"x"}}',
    });

    await expect(loading).rejects.toThrow(/MODEL_CATALOG/);
  });

  it('fails at load with the variable name when DATASETS_TABLE is missing', async () => {
    const loading = loadHandler(HANDLER, { DATASETS_TABLE: undefined, MODEL_CATALOG: '' });

    await expect(loading).rejects.toThrow(/DATASETS_TABLE/);
  });

  it('rejects a MODEL_CATALOG whose default is not in its list', () => {
    const catalog = {
      vector: { models: ['v1'], default: 'v2' },
      agent: { models: ['a1'], default: 'a1' },
      vlm: { models: ['m1'], default: 'm1' },
    };

    const load = () =>
      loadConfig(createDatasetEnvSchema, { DATASETS_TABLE: 't', MODEL_CATALOG: JSON.stringify(catalog) });

    expect(load).toThrow(/MODEL_CATALOG.*vector\.default/);
  });

  it('uses the configured MODEL_CATALOG when it is valid', () => {
    const catalog = {
      vector: { models: ['v1'], default: 'v1' },
      agent: { models: ['a1'], default: 'a1' },
      vlm: { models: ['m1'], default: 'm1' },
    };

    const config = loadConfig(createDatasetEnvSchema, { DATASETS_TABLE: 't', MODEL_CATALOG: JSON.stringify(catalog) });

    expect(config.MODEL_CATALOG.vector).toEqual({
      models: [
        {
          provider: 'Other',
          model: 'v1',
          name: 'v1',
          type: 'embedding',
          charsPointsPrice: 0,
          defaultToken: 512,
          maxToken: 8000,
          weight: 100,
        },
      ],
      default: 'v1',
    });
    expect(config.MODEL_CATALOG.agent.models.map((m) => m.model)).toEqual(['a1']);
    expect(config.MODEL_POLICY).toBe('lenient');
  });

  it('gives a catalogue entry its own fields over the figures known for its name', () => {
    const catalog = {
      vector: { models: [{ model: 'bge-m3', maxToken: 4096, provider: 'Ollama' }], default: 'bge-m3' },
      agent: { models: ['gpt-4o', { model: 'my-llm', name: 'My LLM', maxContext: 32000 }], default: 'gpt-4o' },
      vlm: { models: [{ model: 'my-vl', charsPointsPrice: 2 }], default: 'my-vl' },
    };

    const { MODEL_CATALOG } = loadConfig(createDatasetEnvSchema, {
      DATASETS_TABLE: 't',
      MODEL_CATALOG: JSON.stringify(catalog),
    });

    expect(MODEL_CATALOG.vector.models[0]).toMatchObject({ provider: 'Ollama', maxToken: 4096, defaultToken: 512 });
    expect(MODEL_CATALOG.agent.models[0]).toMatchObject({ provider: 'OpenAI', maxContext: 128000, maxResponse: 4000 });
    expect(MODEL_CATALOG.agent.models[1]).toMatchObject({ provider: 'Other', name: 'My LLM', maxContext: 32000 });
    expect(MODEL_CATALOG.vlm.models[0]).toMatchObject({ charsPointsPrice: 2, vision: true, type: 'llm' });
  });

  it.each([
    [{ model: 'v1', requestUrl: 'http://x' }, /vector\.models\.0/],
    [{ model: 'v1', maxContext: 1000 }, /vector\.models\.0/],
    [{ model: 'v1', maxToken: -1 }, /vector\.models\.0/],
    ['v'.repeat(201), /vector\.models\.0/],
  ])('refuses a catalogue entry %j at cold start, naming where', (entry, where) => {
    const catalog = {
      vector: { models: [entry], default: 'v1' },
      agent: { models: ['a1'], default: 'a1' },
      vlm: { models: ['m1'], default: 'm1' },
    };

    const load = () =>
      loadConfig(createDatasetEnvSchema, { DATASETS_TABLE: 't', MODEL_CATALOG: JSON.stringify(catalog) });

    expect(load).toThrow(where);
  });

  it('reads back the catalogue it wrote: the stack compiles the parsed catalogue into the bundles as JSON', () => {
    const configured = parseModelCatalog({
      vector: { models: ['x-embed', { model: 'bge-m3', maxToken: 4096 }], default: 'bge-m3' },
      agent: { models: ['gpt-4o'], default: 'gpt-4o' },
      vlm: { models: [{ model: 'v', vision: false }], default: 'v' },
    });

    for (const catalog of [BUILT_IN_MODEL_CATALOG, configured]) {
      const { MODEL_CATALOG } = loadConfig(createDatasetEnvSchema, {
        DATASETS_TABLE: 't',
        MODEL_CATALOG: JSON.stringify(catalog),
      });
      expect(MODEL_CATALOG).toEqual(catalog);
    }
  });

  it('refuses a catalogue naming a model twice in one kind', () => {
    const catalog = {
      vector: { models: ['v1', { model: 'v1' }], default: 'v1' },
      agent: { models: ['a1'], default: 'a1' },
      vlm: { models: ['m1'], default: 'm1' },
    };

    const load = () =>
      loadConfig(createDatasetEnvSchema, { DATASETS_TABLE: 't', MODEL_CATALOG: JSON.stringify(catalog) });

    expect(load).toThrow(/MODEL_CATALOG is invalid at vector\.models: names a model twice/);
  });

  it.each([
    ['strict', 'strict'],
    [' STRICT ', 'strict'],
    ['', 'lenient'],
  ])('reads MODEL_POLICY %j as %s', (value, policy) => {
    const config = loadConfig(createDatasetEnvSchema, { DATASETS_TABLE: 't', MODEL_POLICY: value });

    expect(config.MODEL_POLICY).toBe(policy);
  });

  it('fails the cold start on an unknown MODEL_POLICY, naming it', () => {
    const load = () => loadConfig(createDatasetEnvSchema, { DATASETS_TABLE: 't', MODEL_POLICY: 'loose' });

    expect(load).toThrow(/MODEL_POLICY must be lenient or strict/);
  });
});
