import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bagOfWordsEmbedding } from '#test/support/fake-embeddings';
import { type FakeUpstream, startFakeOpenAi } from '#test/support/fake-upstreams';
import { useTestServer } from '#test/support/local-server';
import { callProxy, expectData } from './import-http.helpers.ts';
import { ROWS_PATH } from './import-rows.helpers.ts';
import { type contentClient, newContentClient, CONTENT_PATHS as P } from './kb-content.helpers.ts';

// The knowledge base's whole path through `npm start`'s server (docs/knowledge-base-api.md, docs/knowledge-base-search.md):
// text trained through the relay's routing core (an OpenAI-compatible upstream imported as a channel, whose vectors
// follow the words of a text), then searchTest in each mode finds the passage that answers a question.

const PASSAGES: Record<string, string> = {
  tides:
    'Tides are the rise and fall of sea levels caused by the gravitational pull of the Moon and the Sun on the oceans of the Earth. Most coasts see two high tides and two low tides every lunar day.',
  photosynthesis:
    'Photosynthesis is the process by which green plants use sunlight, water and carbon dioxide to make glucose, releasing oxygen into the air. It takes place in the chloroplasts of leaf cells.',
  greatWall: '长城是中国古代的军事防御工程，东起山海关，西至嘉峪关，全长两万多公里。明朝时期对长城进行了大规模的修建。',
  tea: '龙井茶是产于杭州西湖一带的绿茶，以色绿、香郁、味甘、形美著称，是中国十大名茶之一。',
};

const RERANKER = 'bge-reranker-v2-m3';
const server = useTestServer({ RELAY_ALLOWED_HOSTS: '127.0.0.1' });
let upstream: FakeUpstream;
let api: ReturnType<typeof contentClient>;
let datasetId: string;
const collections = new Map<string, string>();

beforeAll(async () => {
  upstream = await startFakeOpenAi({ embed: bagOfWordsEmbedding() });
  const columns = ['id', 'type', 'key', 'status', 'name', 'base_url', 'models', 'group'];
  const rows = [
    // One OpenAI channel (type 1) that embeds and reranks (the fake answers /v1/rerank as Jina does).
    [
      1,
      1,
      'sk-kb-search-e2e-0123456789abcdef',
      1,
      'models',
      upstream.url,
      `text-embedding-3-small,${RERANKER}`,
      'default',
    ],
  ];
  expectData(await callProxy(server, { method: 'POST', path: ROWS_PATH, json: { columns, rows } }));
  api = await newContentClient(server);
  datasetId = await api.dataset('text-embedding-3-small');
  for (const [name, text] of Object.entries(PASSAGES)) {
    const { collectionId } = await api.ok<{ collectionId: string }>(api.post(P.createText, { datasetId, name, text }));
    collections.set(name, collectionId);
  }
  for (const id of collections.values()) expect(await api.trained(id)).toMatchObject({ status: 'ready' });
}, 60_000);
afterAll(async () => upstream?.close());

interface SearchItem {
  collectionId: string;
  sourceName: string;
  q: string;
  score: { type: string; value: number; index: number }[];
}

async function search(text: string, searchMode: string, extra: Record<string, unknown> = {}) {
  return api.ok<{ list: SearchItem[]; searchMode: string; usingReRank: boolean }>(
    api.post('/api/core/dataset/searchTest', { datasetId, text, searchMode, limit: 5000, similarity: 0, ...extra }),
  );
}

describe('trained text found by searchTest', () => {
  const questions: [string, string][] = [
    ['What causes the tides of the oceans?', 'tides'],
    ['How do green plants make glucose from sunlight?', 'photosynthesis'],
    ['长城东起哪里？', 'greatWall'],
    ['龙井茶产于哪里？', 'tea'],
  ];
  for (const mode of ['embedding', 'fullTextRecall', 'mixedRecall']) {
    it.each(questions)(`${mode}: "%s" finds the passage that answers it first`, async (question, passage) => {
      const result = await search(question, mode);
      expect(result.searchMode).toBe(mode);
      expect(result.list.length).toBeGreaterThan(0);
      expect(result.list[0]?.collectionId).toBe(collections.get(passage));
      expect(result.list[0]?.sourceName).toBe(passage);
      expect(result.list[0]?.q).toContain(PASSAGES[passage]?.slice(0, 12));
    });
  }

  it('embeds the question with the dataset vector model through the imported channel', async () => {
    const before = upstream.requests.length;
    await search('What causes the tides?', 'embedding');
    const calls = upstream.requests.slice(before).filter((r) => r.path.endsWith('/embeddings'));
    expect(calls).toHaveLength(1);
    expect(calls[0]?.body?.model).toBe('text-embedding-3-small');
  });

  it('reranks the candidates through the channel that lists the rerank model', async () => {
    const before = upstream.requests.length;
    const result = await search('How do green plants make glucose from sunlight?', 'mixedRecall', {
      usingReRank: true,
      rerankModel: RERANKER,
      rerankWeight: 1,
    });
    expect(result.usingReRank).toBe(true);
    expect(result.list[0]?.sourceName).toBe('photosynthesis');
    expect(result.list[0]?.score).toEqual([{ type: 'reRank', value: expect.any(Number), index: 0 }]);
    const calls = upstream.requests.slice(before).filter((r) => r.path === '/v1/rerank');
    expect(calls).toHaveLength(1);
    expect(calls[0]?.body).toMatchObject({ model: RERANKER, query: 'How do green plants make glucose from sunlight?' });
    expect(Array.isArray(calls[0]?.body?.documents) && calls[0].body.documents.length).toBeGreaterThan(1);
  });

  it('answers without rerank when the rerank channel fails', async () => {
    upstream.fault({ kind: 'server-error' }, 3);
    const result = await search('What causes the tides of the oceans?', 'fullTextRecall', {
      usingReRank: true,
      rerankModel: RERANKER,
    });
    upstream.clearFaults();
    expect(result.usingReRank).toBe(false);
    expect(result.list[0]?.sourceName).toBe('tides');
    expect(result.list[0]?.score.map((s) => s.type)).toEqual(['fullText']);
  });

  it('no longer finds a collection once it is deleted', async () => {
    const id = collections.get('tea') ?? '';
    expect((await api.del(P.delete, { id })).status).toBe(200);
    for (const mode of ['embedding', 'fullTextRecall', 'mixedRecall']) {
      const result = await search('龙井茶产于哪里？', mode);
      expect(result.list.map((i) => i.collectionId)).not.toContain(id);
    }
  });
});
