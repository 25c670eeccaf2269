import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { DynamoFullTextIndex } from '#shared/kb/search/full-text-index';
import { captureOutput } from '#test/support/capture-output';
import { chunkItem, collectionItem, putItems } from '#test/support/kb-search-items';
import { useTestServer } from '#test/support/local-server';
import { addAccessToken, createRequest, expectCreated, expectError } from './create-dataset.helpers.ts';
import { kbRequest } from './knowledge-base.helpers.ts';

/*
 * POST /api/core/dataset/searchTest through `npm start`'s server (dynalite): the real authorizer, handler and tables;
 * the knowledge base's content written as the training core lays it out (shared/kb/contract.ts). Every answer is
 * checked against the OpenAPI document.
 */

const SEARCH = '/api/core/dataset/searchTest';
const server = useTestServer();
let bearer: string;
let teamId: string;
let datasetId: string;
let ids: Record<'eiffel' | 'honey' | 'panda', string>;

const PASSAGES = {
  eiffel:
    "The Eiffel Tower was completed in 1889 for the World's Fair in Paris. It is about 330 metres tall and was the tallest man-made structure in the world for 41 years.",
  honey:
    'Honey never spoils when it is stored in a sealed container: its low water content and its acidity keep bacteria and moulds from growing.',
  panda:
    '大熊猫主要生活在四川、陕西和甘肃的山区竹林中，以竹子为主要食物。成年大熊猫每天要花十多个小时进食，一天可以吃掉十几公斤竹子。',
};

beforeAll(async () => {
  const token = server.credentials.accessTokens[0];
  if (!token) throw new Error('the local server made no access token');
  bearer = `Bearer ${token.token}`;
  teamId = token.teamId;
  datasetId = expectCreated(await createRequest(server, { name: 'Search me' }, bearer));
  const documents = DynamoDBDocumentClient.from(server.dynamo, { marshallOptions: { removeUndefinedValues: true } });
  const collection = collectionItem(teamId, datasetId, { name: 'facts.md', rawLink: 'https://example.com/facts' });
  const chunks = (['eiffel', 'honey', 'panda'] as const).map((name, i) => chunkItem(collection, i, PASSAGES[name]));
  ids = { eiffel: chunks[0]!.id, honey: chunks[1]!.id, panda: chunks[2]!.id };
  await putItems(documents, server.tables.kbContent, [collection, ...chunks]);
  await new DynamoFullTextIndex(documents, server.tables.kbTerms).add(
    teamId,
    datasetId,
    chunks.map((c) => ({ dataId: c.id, collectionId: c.collectionId, chunkIndex: c.chunkIndex, texts: [c.q, c.a] })),
  );
});

const search = (body: unknown, authorization = bearer) =>
  kbRequest(server, 'POST', SEARCH, { bearer: authorization, body });

describe('POST /api/core/dataset/searchTest', () => {
  it('finds the passage that answers a question by full text, with no embedding channel, in FastGPT’s answer', async () => {
    const reply = await search({ datasetId, text: 'How tall is the Eiffel Tower?', searchMode: 'fullTextRecall' });

    expect(reply.status).toBe(200);
    const data = reply.body.data as Record<string, unknown>;
    expect(data).toMatchObject({
      searchMode: 'fullTextRecall',
      limit: 5000,
      similarity: 0,
      usingReRank: false,
      usingSimilarityFilter: false,
      duration: expect.stringMatching(/^\d+\.\d{3}s$/),
    });
    const list = data.list as Record<string, unknown>[];
    expect(list[0]).toEqual({
      id: ids.eiffel,
      q: PASSAGES.eiffel,
      a: '',
      chunkIndex: 0,
      datasetId,
      collectionId: expect.any(String),
      sourceName: 'facts.md',
      sourceId: 'https://example.com/facts',
      updateTime: expect.any(String),
      score: [{ type: 'fullText', value: expect.any(Number), index: 0 }],
    });
  });

  it('finds Chinese text, and runs mixed recall on full text alone when nothing can embed', async () => {
    const reply = await search({ datasetId, text: '大熊猫吃什么', searchMode: 'mixedRecall' });
    expect(reply.status).toBe(200);
    const list = (reply.body.data as { list: { id: string }[] }).list;
    expect(list.map((i) => i.id)).toEqual([ids.panda]);
  });

  it('cuts the list to the token budget, keeping at least one chunk', async () => {
    const reply = await search({
      datasetId,
      text: 'Eiffel honey sealed Paris',
      searchMode: 'fullTextRecall',
      limit: 1,
    });
    expect((reply.body.data as { list: unknown[]; limit: number }).list).toHaveLength(1);
    expect((reply.body.data as { limit: number }).limit).toBe(1);
  });

  it('answers 424 embeddingUnavailable for embedding recall when no channel can embed, saying what works', async () => {
    const reply = await search({ datasetId, text: 'How tall is the Eiffel Tower?' });
    expectError(reply, 424, 424);
    expect(reply.body.message).toMatch(/text-embedding-3-small.*fullTextRecall/);
  });

  it('answers 404/501002 for an unknown knowledge base and for another team’s, alike', async () => {
    const other = await addAccessToken(server);
    const unknown = await search({ datasetId: 'ffffffffffffffffffffffff', text: 'x', searchMode: 'fullTextRecall' });
    const foreign = await search({ datasetId, text: 'Eiffel', searchMode: 'fullTextRecall' }, `Bearer ${other.token}`);
    expectError(unknown, 404, 501002);
    expectError(foreign, 404, 501002);
    expect(foreign.body.message).toBe(unknown.body.message);
  });

  it('answers 400/507004 without datasetId or text, and 400/507000 for a bad field', async () => {
    expectError(await search({ text: 'x' }), 400, 507004);
    expectError(await search({ datasetId }), 400, 507004);
    expectError(await search({ datasetId, text: '   ' }), 400, 507004);
    expectError(await search({ datasetId, text: 'x', limit: -1 }), 400, 507000);
    expectError(await search({ datasetId, text: 'x', embeddingWeight: 2 }), 400, 507000);
  });

  it('reads an unknown searchMode as embedding and caps limit at 20,000, as FastGPT does', async () => {
    const reply = await search({ datasetId, text: 'x', searchMode: 'hybrid', limit: 50_000 });
    expectError(reply, 424, 424);
    const capped = await search({ datasetId, text: 'Eiffel', searchMode: 'fullTextRecall', limit: 50_000 });
    expect((capped.body.data as { limit: number }).limit).toBe(20_000);
  });

  it('never writes the question or the stored text to the logs', async () => {
    const capture = captureOutput();
    let output: string;
    try {
      await search({ datasetId, text: 'secret question about honey', searchMode: 'fullTextRecall' });
      await search({ datasetId, text: 'secret question about honey' });
    } finally {
      output = capture.text();
      capture.restore();
    }
    expect(output).not.toContain('secret question');
    expect(output).not.toContain('Honey never spoils');
  });
});
