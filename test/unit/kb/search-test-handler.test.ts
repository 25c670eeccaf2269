import { DynamoDBClient, SearchVectorsCommand } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { proxyEvent } from '#test/support/events';
import { loadHandler } from '#test/support/handler';

type HandlerModule = typeof import('#functions/search-test/handler');

const documents = mockClient(DynamoDBDocumentClient);
const raw = mockClient(DynamoDBClient);
const caller = { scope: 'dataset', teamId: 'team-a', tmbId: 'member-a', tokenId: 'token-a' };
const DATASET = '6740a1f2c3d4e5f6a7b8c9d0';
const event = (body: unknown, authorizer: Record<string, unknown> | null = caller) =>
  proxyEvent('/api/core/dataset/searchTest', JSON.stringify(body), authorizer);

describe('search-test handler (deployed configuration: vector indexes)', () => {
  let handler: HandlerModule['handler'];

  beforeAll(async () => {
    ({ handler } = await loadHandler<HandlerModule>('#functions/search-test/handler', {
      DATASETS_TABLE: 'datasets-unit',
      KB_CONTENT_TABLE: 'content-unit',
      KB_VECTORS_TABLE: 'vectors-unit',
      KB_TERMS_TABLE: 'terms-unit',
      KB_VECTOR_SEARCH: 'index',
      KB_VECTOR_DIMENSIONS: '1536',
      MODEL_CATALOG: '',
      LOG_LEVEL: 'SILENT',
    }));
  });

  beforeEach(() => {
    documents.reset();
    raw.reset();
  });

  it("reads the caller's knowledge base from the configured table, by the caller's team", async () => {
    documents.on(GetCommand).resolves({});

    const response = await handler(event({ datasetId: DATASET, text: 'q', searchMode: 'fullTextRecall' }));

    expect(response.statusCode).toBe(404);
    expect(JSON.parse(response.body)).toMatchObject({ code: 501002, statusText: 'unExistDataset', data: null });
    expect(documents.commandCalls(GetCommand)[0]?.args[0].input).toMatchObject({
      TableName: 'datasets-unit',
      Key: { teamId: 'team-a', id: DATASET },
    });
  });

  it('searches the terms table for full text and sends no SearchVectors', async () => {
    documents
      .on(GetCommand)
      .resolves({ Item: { teamId: 'team-a', id: DATASET, type: 'dataset', vectorModel: 'bge-m3' } });
    documents.on(BatchGetCommand).resolves({ Responses: {} });
    documents.on(QueryCommand).resolves({ Items: [] });

    const response = await handler(event({ datasetId: DATASET, text: 'honey', searchMode: 'fullTextRecall' }));

    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body).data).toMatchObject({ list: [], searchMode: 'fullTextRecall' });
    const counters = documents.commandCalls(GetCommand).map((call) => call.args[0].input);
    expect(counters).toContainEqual(
      expect.objectContaining({ TableName: 'terms-unit', Key: expect.objectContaining({ sk: 'n' }) }),
    );
    expect(raw.commandCalls(SearchVectorsCommand)).toHaveLength(0);
  });

  it('answers 424 for embedding recall with no embedder wired, before any vector search', async () => {
    documents
      .on(GetCommand)
      .resolves({ Item: { teamId: 'team-a', id: DATASET, type: 'dataset', vectorModel: 'bge-m3' } });

    const response = await handler(event({ datasetId: DATASET, text: 'honey' }));

    expect(response.statusCode).toBe(424);
    expect(JSON.parse(response.body).message).toMatch(/bge-m3/);
    expect(raw.commandCalls(SearchVectorsCommand)).toHaveLength(0);
  });

  it('refuses a caller without the dataset scope before reading anything', async () => {
    const response = await handler(event({ datasetId: DATASET, text: 'q' }, { ...caller, scope: 'admin' }));
    expect(response.statusCode).toBe(401);
    expect(documents.calls()).toHaveLength(0);
  });
});
