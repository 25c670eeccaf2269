import { beforeAll, describe, expect, it } from 'vitest';
import type { FakeUpstream } from '#test/support/fake-upstreams';
import {
  type contentClient,
  EMBEDDING_CHANNEL_KEY,
  CONTENT_PATHS as P,
  useEmbeddingWorld,
} from './kb-content.helpers.ts';

// docs/knowledge-base-api.md, "Training", end to end: a fake OpenAI-compatible upstream imported as a channel, the
// local server's in-process queue running the training function, embeddings through the relay's routing core.

const ENGLISH =
  'FastGPT is a knowledge base platform built on large language models.\n\nIt splits documents into chunks and embeds them.';
const CHINESE = '知识库把文档切分成块。\n\n每个块都通过向量模型生成向量，用于检索。';

const world = useEmbeddingWorld();
const { server } = world;
let upstream: FakeUpstream;
let api: ReturnType<typeof contentClient>;
beforeAll(() => {
  ({ upstream, api } = world);
});

const embeddingCalls = () => upstream.requests.filter((r) => r.path.endsWith('/embeddings'));

describe('training through the relay', () => {
  it('trains English and Chinese text: chunks in data/v2/list, status and counts on the collection', async () => {
    const datasetId = await api.dataset('text-embedding-3-small');
    const before = embeddingCalls().length;

    const english = await api.ok<{ collectionId: string }>(
      api.post(P.createText, { datasetId, name: 'English', text: ENGLISH, chunkSize: 64 }),
    );
    const chinese = await api.ok<{ collectionId: string }>(
      api.post(P.createText, { datasetId, name: '中文', text: CHINESE, chunkSize: 64 }),
    );

    for (const [{ collectionId }, chunks] of [
      [english, 2],
      [chinese, 1],
    ] as const) {
      const detail = await api.trained(collectionId);
      expect(detail).toMatchObject({ status: 'ready', hasError: false, trainingAmount: 0 });
      const data = await api.ok<{ list: { q: string; chunkIndex: number }[]; total: number }>(
        api.post(P.dataV2, { collectionId, pageSize: 30 }),
      );
      expect(data.total).toBeGreaterThanOrEqual(chunks);
      expect(detail.dataAmount).toBe(data.total);
      expect(data.list.map((d) => d.chunkIndex)).toEqual([...data.list.keys()]);
    }
    const chineseData = await api.ok<{ list: { q: string }[] }>(
      api.post(P.dataV2, { collectionId: chinese.collectionId }),
    );
    expect(chineseData.list.map((d) => d.q).join('')).toContain('向量');
    const calls = embeddingCalls().slice(before);
    expect(calls.length).toBeGreaterThanOrEqual(2);
    expect(calls.every((c) => c.body?.model === 'text-embedding-3-small')).toBe(true);
    expect(calls.every((c) => c.headers.authorization === `Bearer ${EMBEDDING_CHANNEL_KEY}`)).toBe(true);
    const queue = await api.ok(api.get(P.trainingQueue, { datasetId }));
    expect(queue).toMatchObject({ rebuildingCount: 0, trainingCount: 0, hasError: false });
  });

  it('says on the collection that no channel serves the vector model', async () => {
    const datasetId = await api.dataset('text-embedding-3-large');

    const { collectionId } = await api.ok<{ collectionId: string }>(
      api.post(P.createText, { datasetId, name: 'Large', text: ENGLISH }),
    );

    const detail = await api.trained(collectionId);
    expect(detail).toMatchObject({
      status: 'error',
      hasError: true,
      errorMsg: 'no channel serves text-embedding-3-large for group default',
    });
    const list = await api.ok<{ list: Record<string, unknown>[] }>(api.post(P.listV2, { datasetId }));
    expect(list.list[0]).toMatchObject({ status: 'error', hasError: true });
  });

  it('retries an upstream that fails, and finishes once it recovers', async () => {
    const datasetId = await api.dataset('text-embedding-3-small');
    upstream.fault({ kind: 'server-error', status: 500 }, 2);
    const before = embeddingCalls().length;

    const { collectionId } = await api.ok<{ collectionId: string }>(
      api.post(P.createText, { datasetId, name: 'Flaky', text: 'One short paragraph.' }),
    );

    const detail = await api.trained(collectionId);
    expect(detail).toMatchObject({ status: 'ready', hasError: false, dataAmount: 1 });
    expect(embeddingCalls().length - before).toBe(3);
  });

  it('embeds pushed data, reports repeats and empty items, and re-embeds an edited chunk', async () => {
    const datasetId = await api.dataset('text-embedding-3-small');
    const collectionId = await api.ok<string>(api.post(P.createCollection, { datasetId, name: 'Manual' }));

    const pushed = await api.ok<{ insertLen: number; repeat: unknown[]; error: unknown[] }>(
      api.post(P.pushData, {
        collectionId,
        trainingType: 'chunk',
        data: [{ q: 'What is FastGPT?', a: 'A platform.' }, { q: 'What is FastGPT?', a: 'A platform.' }, { a: 'no q' }],
      }),
    );
    expect(pushed).toMatchObject({ insertLen: 1, repeat: [{ q: 'What is FastGPT?' }], error: [{ a: 'no q' }] });

    let data = await waitForData(api, collectionId, 1);
    const dataId = data[0]?._id as string;
    const before = embeddingCalls().length;
    await api.ok(api.put(P.dataUpdate, { dataId, q: 'What is FastGPT, really?' }));
    const deadline = Date.now() + 10_000;
    while (embeddingCalls().length === before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(embeddingCalls().length).toBe(before + 1);
    expect(await api.ok(api.get(P.dataDetail, { id: dataId }))).toMatchObject({ q: 'What is FastGPT, really?' });

    await api.ok(api.del(P.dataDelete, { id: dataId }));
    data = (await api.ok<{ list: { _id: string }[] }>(api.post(P.dataV2, { collectionId }))).list;
    expect(data).toEqual([]);
  });
});

describe('a file collection (shared/kb/sources) trained by the same core', () => {
  it('uploads a Markdown file, reads it through the source reader, and trains it', async () => {
    const datasetId = await api.dataset('text-embedding-3-small');
    const form = new FormData();
    form.append('data', JSON.stringify({ datasetId, chunkSize: 64 }));
    const markdown = `# FastGPT\n\n${ENGLISH}\n\n## 中文\n\n${CHINESE}`;
    form.append('file', new Blob([new TextEncoder().encode(markdown)], { type: 'text/markdown' }), 'guide.md');

    const response = await fetch(`${server.url}/api/core/dataset/collection/create/localFile`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${api.token.token}` },
      body: form,
    });
    const created = (await response.json()) as { data: { collectionId: string } };

    expect(response.status).toBe(200);
    const detail = await api.trained(created.data.collectionId);
    expect(detail).toMatchObject({ status: 'ready', type: 'file', hasError: false });
    const data = await api.ok<{ list: { q: string }[]; total: number }>(
      api.post(P.dataV2, { collectionId: created.data.collectionId, pageSize: 30 }),
    );
    expect(data.total).toBeGreaterThanOrEqual(2);
    expect(data.list.map((d) => d.q).join('\n')).toContain('向量');
  });
});

describe('a FastGPT backup (collection/create/backup) trained by the same core', () => {
  it('imports each row as a chunk with its own index texts, each embedded, and finds a row by one of them', async () => {
    const datasetId = await api.dataset('text-embedding-3-small');
    const before = embeddingCalls().length;
    const csv = [
      'q,a,indexes',
      '"How are chunks embedded?","In batches, through the relay.","批量向量化","batch embeddings"',
      '"什么是知识库？","存放文档切块的地方。",',
      ',,',
    ].join('\n');
    const form = new FormData();
    form.append('data', JSON.stringify({ datasetId }));
    form.append('file', new Blob([new TextEncoder().encode(csv)], { type: 'text/csv' }), 'fastgpt-export.csv');

    const response = await fetch(`${server.url}${P.createBackup}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${api.token.token}` },
      body: form,
    });
    const created = (await response.json()) as { data: { collectionId: string; results: { insertLen: number } } };

    expect(response.status).toBe(200);
    expect(created.data.results.insertLen).toBe(2);
    const detail = await api.trained(created.data.collectionId);
    expect(detail).toMatchObject({ status: 'ready', type: 'file', trainingType: 'backup', name: 'fastgpt-export.csv' });
    const data = await api.ok<{ list: { _id: string; q: string; a: string }[]; total: number }>(
      api.post(P.dataV2, { collectionId: created.data.collectionId }),
    );
    expect(data.list.map((d) => [d.q, d.a])).toEqual([
      ['How are chunks embedded?', 'In batches, through the relay.'],
      ['什么是知识库？', '存放文档切块的地方。'],
    ]);
    const first = await api.ok<{ indexes: { type: string; text: string }[] }>(
      api.get(P.dataDetail, { id: data.list[0]?._id as string }),
    );
    expect(first.indexes.map((i) => [i.type, i.text])).toEqual([
      ['default', 'How are chunks embedded?\nIn batches, through the relay.'],
      ['custom', '批量向量化'],
      ['custom', 'batch embeddings'],
    ]);
    const embedded = embeddingCalls()
      .slice(before)
      .flatMap((r) => (r.body as { input: string[] }).input);
    expect(embedded).toEqual(
      expect.arrayContaining(['批量向量化', 'batch embeddings', '什么是知识库？\n存放文档切块的地方。']),
    );
    const found = await api.ok<{ list: { q: string }[] }>(
      api.post(P.searchTest, {
        datasetId,
        text: '批量向量化',
        searchMode: 'fullTextRecall',
        limit: 5000,
        similarity: 0,
      }),
    );
    expect(found.list[0]?.q).toBe('How are chunks embedded?');
  });

  it('refuses a file without a chunk, or not a .csv, and stores nothing', async () => {
    const datasetId = await api.dataset('text-embedding-3-small');
    const send = async (name: string, type: string, text: string) => {
      const form = new FormData();
      form.append('data', JSON.stringify({ datasetId }));
      form.append('file', new Blob([new TextEncoder().encode(text)], { type }), name);
      const response = await fetch(`${server.url}${P.createBackup}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${api.token.token}` },
        body: form,
      });
      return { status: response.status, body: (await response.json()) as { code: number; message: string } };
    };

    expect(await send('empty.csv', 'text/csv', 'q,a,indexes\n,,\n')).toMatchObject({
      status: 400,
      body: { code: 507000 },
    });
    expect(await send('notes.txt', 'text/plain', 'q,a\nx,y\n')).toMatchObject({ status: 400, body: { code: 507000 } });
    const listed = await api.ok<{ total: number }>(api.post(P.listV2, { datasetId }));
    expect(listed.total).toBe(0);
  });

  it("reads FastGPT's own export (index,content) as q and a, and a template (collection/create/template) alike", async () => {
    const datasetId = await api.dataset('text-embedding-3-small');
    const upload = async (path: string, name: string, csv: string) => {
      const form = new FormData();
      form.append('data', JSON.stringify({ datasetId }));
      form.append('file', new Blob([new TextEncoder().encode(csv)], { type: 'text/csv' }), name);
      const response = await fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${api.token.token}` },
        body: form,
      });
      expect(response.status).toBe(200);
    };
    await upload(
      P.createBackup,
      'data.csv',
      '\uFEFFindex,content\n"What does the relay do?","It routes calls to channels."',
    );
    await upload(P.createTemplate, 'template.csv', 'q,a,index\n"退款多久到账？","三个工作日内。","退款时间"\n');

    const listed = await api.ok<{ list: { _id: string; name: string }[] }>(api.post(P.listV2, { datasetId }));
    const idOf = (name: string) => listed.list.find((c) => c.name === name)?._id as string;
    expect(await api.trained(idOf('data.csv'))).toMatchObject({ status: 'ready', trainingType: 'backup' });
    expect(await api.trained(idOf('template.csv'))).toMatchObject({ status: 'ready', trainingType: 'template' });
    const indexesOf = async (collectionId: string) => {
      const data = await api.ok<{ list: { _id: string }[] }>(api.post(P.dataV2, { collectionId }));
      const detail = await api.ok<{ q: string; a: string; indexes: { type: string; text: string }[] }>(
        api.get(P.dataDetail, { id: data.list[0]?._id as string }),
      );
      return [detail.q, detail.a, detail.indexes.map((i) => [i.type, i.text])];
    };
    expect(await indexesOf(idOf('data.csv'))).toEqual([
      'What does the relay do?',
      'It routes calls to channels.',
      [['default', 'What does the relay do?\nIt routes calls to channels.']],
    ]);
    expect(await indexesOf(idOf('template.csv'))).toEqual([
      '退款多久到账？',
      '三个工作日内。',
      [
        ['default', '退款多久到账？\n三个工作日内。'],
        ['custom', '退款时间'],
      ],
    ]);
  });
});

describe("a collection's export (collection/export), streamed as FastGPT writes it", () => {
  it('answers the CSV of a trained collection, which the backup import reads back chunk for chunk', async () => {
    const datasetId = await api.dataset('text-embedding-3-small');
    const text = [
      '## 退款\n\n退款在三个工作日内原路退回，节假日顺延。',
      '## Passwords\n\n- Reset a password from the sign-in page, "Forgot password", then follow the e-mail.',
    ].join('\n\n');
    const { collectionId } = await api.ok<{ collectionId: string }>(
      api.post(P.createText, { datasetId, name: 'faq', text, trainingType: 'chunk', chunkSize: 64 }),
    );
    await api.trained(collectionId);
    const data = await api.ok<{ list: { q: string; a: string }[] }>(api.post(P.dataV2, { collectionId }));

    const response = await fetch(`${server.url}${P.export}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${api.token.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ collectionId }),
    });
    // Bytes, not response.text(): a text decoder drops the byte-order mark FastGPT's export begins with.
    const csv = Buffer.from(await response.arrayBuffer()).toString('utf8');

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(response.headers.get('content-disposition')).toBe('attachment; filename=data.csv');
    expect(csv.startsWith('\uFEFFindex,content\n')).toBe(true);
    expect(data.list.length).toBeGreaterThan(1);
    const form = new FormData();
    form.append('data', JSON.stringify({ datasetId }));
    form.append('file', new Blob([new TextEncoder().encode(csv)], { type: 'text/csv' }), 'data.csv');
    const imported = await fetch(`${server.url}${P.createBackup}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${api.token.token}` },
      body: form,
    });
    const created = (await imported.json()) as { data: { collectionId: string; results: { insertLen: number } } };
    expect(created.data.results.insertLen).toBe(data.list.length);
    await api.trained(created.data.collectionId);
    const again = await api.ok<{ list: { q: string; a: string }[] }>(
      api.post(P.dataV2, { collectionId: created.data.collectionId }),
    );
    // A chunk starting with "-" (a Markdown list) comes back with FastGPT's "'" in front, as from FastGPT's own export.
    const formula = (q: string) => (/^[=+\-@|]/.test(q) ? `'${q}` : q);
    expect(again.list.map((d) => [d.q, d.a])).toEqual(data.list.map((d) => [formula(d.q), d.a]));
  });

  it("answers an unknown collection in the API's envelope (501003), with the caller's CORS headers", async () => {
    const response = await fetch(`${server.url}${P.export}`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${api.token.token}`,
        'Content-Type': 'application/json',
        Origin: 'https://fastgpt.example.com',
      },
      body: JSON.stringify({ collectionId: 'f'.repeat(24) }),
    });

    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ code: 501003, data: null });
    expect(response.headers.get('access-control-allow-origin')).toBe('https://fastgpt.example.com');
  });
});

async function waitForData(client: typeof api, collectionId: string, count: number) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const { list } = await client.ok<{ list: { _id: string }[] }>(client.post(P.dataV2, { collectionId }));
    if (list.length >= count || Date.now() > deadline) return list;
    await new Promise((r) => setTimeout(r, 50));
  }
}
