import { beforeAll, describe, expect, it } from 'vitest';
import type * as z from 'zod';
import {
  fastgptCollectionDetail,
  fastgptCollectionPage,
  fastgptCollectionPagingData,
  fastgptCollectionPaths,
  fastgptCreateTextResponse,
  fastgptDataDetail,
  fastgptDataPage,
  fastgptDataPagingData,
  fastgptInsertDataResponse,
  fastgptPreviewChunksResponse,
  fastgptPushDataResponse,
  fastgptRetrainResponse,
  fastgptTrainingDetail,
  fastgptTrainingQueue,
} from '#test/support/fastgpt-content-types';
import { useTestServer } from '#test/support/local-server';
import { type contentClient, newContentClient, CONTENT_PATHS as P } from './kb-content.helpers.ts';

// FastGPT's documented curl examples of the content calls (docs at doc.fastgpt.io, "知识库接口", read for v4.11–v4.16),
// bodies as the documentation writes them, each answer checked against FastGPT's own response type.

const server = useTestServer();
let api: ReturnType<typeof contentClient>;
let datasetId: string;

beforeAll(async () => {
  api = await newContentClient(server);
  datasetId = await api.dataset();
});

function fastgpt<T extends z.ZodType>(schema: T, data: unknown): z.infer<T> {
  const parsed = schema.safeParse(data);
  expect(parsed.error?.issues ?? []).toEqual([]);
  return parsed.data as z.infer<T>;
}

describe("FastGPT's documented examples, answered in FastGPT's types", () => {
  it('collection/create (an empty collection with metadata) answers the id; the detail is a DatasetCollectionItemType', async () => {
    const id = await api.ok<string>(
      api.post(P.createCollection, {
        datasetId,
        parentId: null,
        name: '测试',
        type: 'virtual',
        metadata: { test: 111 },
      }),
    );

    fastgpt(fastgptCollectionDetail, await api.ok(api.get(P.detail, { id })));
  });

  it('collection/create/text (qa, chunkSettingMode auto) answers {collectionId, results: {insertLen}}', async () => {
    const created = await api.ok(
      api.post(P.createText, {
        text: 'xxxxxxxx',
        datasetId,
        parentId: null,
        name: '测试训练',
        trainingType: 'qa',
        chunkSettingMode: 'auto',
        qaPrompt: '',
        metadata: {},
      }),
    );

    fastgpt(fastgptCreateTextResponse, created);
  });

  it('collection/listV2 and the deprecated list answer FastGPT’s page types', async () => {
    fastgpt(
      fastgptCollectionPage,
      await api.ok(api.post(P.listV2, { offset: 0, pageSize: 10, datasetId, parentId: null, searchText: '' })),
    );
    fastgpt(
      fastgptCollectionPagingData,
      await api.ok(api.post(P.listOld, { pageNum: 1, pageSize: 10, datasetId, parentId: null, searchText: '' })),
    );
  });

  it('collection/update (name, tags, forbid, createTime) answers null', async () => {
    const id = await api.ok<string>(api.post(P.createCollection, { datasetId, name: 'x', type: 'virtual' }));

    const data = await api.ok(
      api.put(P.update, {
        id,
        parentId: null,
        name: '测2222试',
        tags: ['tag1', 'tag2'],
        forbid: false,
        createTime: '2024-01-01T00:00:00.000Z',
      }),
    );

    expect(data).toBeNull();
    expect(await api.ok(api.get(P.detail, { id }))).toMatchObject({ name: '测2222试', tags: ['tag1', 'tag2'] });
  });

  it('data/pushData (q, a and custom indexes), data/v2/list, data/list, data/detail and data/update', async () => {
    const collectionId = await api.ok<string>(api.post(P.createCollection, { datasetId, name: 'm', type: 'virtual' }));

    const pushed = await api.ok(
      api.post(P.pushData, {
        collectionId,
        trainingType: 'chunk',
        prompt: '可选。qa 拆分引导词，chunk 模式下忽略',
        billId: '可选。',
        data: [
          { q: '你是谁？', a: '我是FastGPT助手' },
          { q: '你会什么？', a: '我什么都会', indexes: [{ text: '你会哪些技能？' }, { text: '你擅长什么？' }] },
        ],
      }),
    );
    fastgpt(fastgptPushDataResponse, pushed);
    const deadline = Date.now() + 10_000;
    let page = fastgpt(
      fastgptDataPage,
      await api.ok(api.post(P.dataV2, { offset: 0, pageSize: 10, collectionId, searchText: '' })),
    );
    while (page.total < 2 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      page = fastgpt(fastgptDataPage, await api.ok(api.post(P.dataV2, { offset: 0, pageSize: 10, collectionId })));
    }
    fastgpt(fastgptDataPagingData, await api.ok(api.post(P.dataOld, { pageNum: 1, pageSize: 10, collectionId })));
    const second = page.list.find((d) => d.q === '你会什么？');
    const detail = fastgpt(fastgptDataDetail, await api.ok(api.get(P.dataDetail, { id: second?._id ?? '' })));
    expect(detail.indexes.map((i) => i.text)).toEqual(['你会什么？\n我什么都会', '你会哪些技能？', '你擅长什么？']);

    await api.ok(
      api.put(P.dataUpdate, {
        dataId: detail.id,
        q: '测试111',
        a: 'sss',
        indexes: [
          { dataId: 'xxxx', type: 'default', text: '默认索引' },
          { dataId: 'xxx', type: 'custom', text: '旧的自定义索引1' },
          { type: 'custom', text: '新增的自定义索引' },
        ],
      }),
    );
    expect(await api.ok(api.get(P.dataDetail, { id: detail.id }))).toMatchObject({
      q: '测试111',
      a: 'sss',
      indexes: [{ type: 'default' }, { text: '旧的自定义索引1' }, { text: '新增的自定义索引' }],
    });
  });

  it("collection/paths and data/insertData answer as FastGPT's web client reads them", async () => {
    const folder = await api.ok<string>(api.post(P.createCollection, { datasetId, name: '目录', type: 'folder' }));
    const collectionId = await api.ok<string>(
      api.post(P.createCollection, { datasetId, parentId: folder, name: '手动', type: 'virtual' }),
    );

    const paths = fastgpt(fastgptCollectionPaths, await api.ok(api.get(P.paths, { parentId: collectionId })));
    expect(paths.map((p) => p.parentName)).toEqual(['目录', '手动']);
    fastgpt(
      fastgptInsertDataResponse,
      await api.ok(api.post(P.insertData, { collectionId, q: '你是谁？', a: 'FastGPT' })),
    );
  });

  it('training/getDatasetTrainingQueue answers {rebuildingCount, trainingCount}', async () => {
    fastgpt(fastgptTrainingQueue, await api.ok(api.get(P.trainingQueue, { datasetId })));
  });

  it('collection/trainingDetail answers GetCollectionTrainingDetailResponse, every training mode counted', async () => {
    const created = await api.ok<{ collectionId: string }>(
      api.post(P.createText, { datasetId, name: '训练详情', text: '第一段。\n\nSecond paragraph.' }),
    );
    await api.trained(created.collectionId);

    fastgpt(fastgptTrainingDetail, await api.ok(api.get(P.trainingDetail, { collectionId: created.collectionId })));
  });

  it('collection/create/reTrainingCollection (a text collection, new chunk settings) answers {collectionId}', async () => {
    const created = await api.ok<{ collectionId: string }>(
      api.post(P.createText, { datasetId, name: '重新训练', text: '第一段。\n\nSecond paragraph.' }),
    );
    await api.trained(created.collectionId);

    const answer = fastgpt(
      fastgptRetrainResponse,
      await api.ok(
        api.post(P.retrain, {
          datasetId,
          collectionId: created.collectionId,
          trainingType: 'chunk',
          chunkSettingMode: 'custom',
          chunkSplitMode: 'size',
          chunkSize: 512,
          indexSize: 512,
        }),
      ),
    );
    expect(await api.trained(answer.collectionId)).toMatchObject({ chunkSize: 512, indexSize: 512 });
  });

  it("file/getPreviewChunks of a collection read again (reTraining) answers GetPreviewChunksResponse with the form's settings", async () => {
    const text = Array.from({ length: 14 }, (_, i) => `第${i + 1}段：退款在三个工作日内到账。`).join('\n\n');
    const created = await api.ok<{ collectionId: string }>(
      api.post(P.createText, { datasetId, name: '预览', text, chunkSize: 1000 }),
    );

    // The body of FastGPT's web client: its whole form, the source and overlapRatio 0.2.
    const preview = fastgpt(
      fastgptPreviewChunksResponse,
      await api.ok(
        api.post('/api/core/dataset/file/getPreviewChunks', {
          datasetId,
          type: 'reTraining',
          sourceId: created.collectionId,
          trainingType: 'chunk',
          chunkSettingMode: 'custom',
          chunkSplitMode: 'char',
          chunkSplitter: '\n\n',
          chunkSize: 512,
          indexSize: 512,
          customPdfParse: false,
          overlapRatio: 0.2,
        }),
      ),
    );
    expect(preview.total).toBe(14);
    expect(preview.chunks).toHaveLength(10);
    expect(preview.chunks[0]).toEqual({ q: '第1段：退款在三个工作日内到账。', a: '' });
  });

  it('collection/delete by POST with {collectionIds}, as the web client sends it (delDatasetCollectionById)', async () => {
    const a = await api.ok<string>(api.post(P.createCollection, { datasetId, name: 'posted' }));

    await api.ok(api.post(P.delete, { collectionIds: [a] }));

    const page = await api.ok<{ list: { _id: string }[] }>(api.post(P.listV2, { datasetId, pageSize: 30 }));
    expect(page.list.map((c) => c._id)).not.toContain(a);
  });

  it('collection/delete with a body of collectionIds (FastGPT ≥ 4.12) deletes each', async () => {
    const a = await api.ok<string>(api.post(P.createCollection, { datasetId, name: 'a' }));
    const b = await api.ok<string>(api.post(P.createCollection, { datasetId, name: 'b' }));

    await api.ok(api.del(P.delete, {}, { collectionIds: [a, b] }));

    const page = await api.ok<{ list: { _id: string }[] }>(api.post(P.listV2, { datasetId, pageSize: 30 }));
    expect(page.list.map((c) => c._id)).not.toContain(a);
    expect(page.list.map((c) => c._id)).not.toContain(b);
  });
});

describe("FastGPT's backup import (collection/create/backup), answered in FastGPT's types", () => {
  it('answers CreateCollectionWithResultResponseType, and the collection is a DatasetCollectionItemType of backup', async () => {
    // The older header FastGPT's export writes (q,a,indexes), as its web client's backup import sends it.
    const form = new FormData();
    form.append('data', JSON.stringify({ datasetId, parentId: null }));
    const csv = 'q,a,indexes\n"你好","你好！有什么可以帮你？","打招呼"\n';
    form.append('file', new Blob([new TextEncoder().encode(csv)], { type: 'text/csv' }), 'backup.csv');
    const response = await fetch(`${server.url}${P.createBackup}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${api.token.token}` },
      body: form,
    });
    const body = (await response.json()) as { code: number; data: unknown };

    expect(response.status).toBe(200);
    const created = fastgpt(fastgptCreateTextResponse, body.data);
    expect(created.results.insertLen).toBe(1);
    const detail = fastgpt(fastgptCollectionDetail, await api.ok(api.get(P.detail, { id: created.collectionId })));
    expect(detail).toMatchObject({ trainingType: 'backup', type: 'file', name: 'backup.csv' });
  });

  it('answers the template import (collection/create/template) with {}, as FastGPT, and makes a collection of template', async () => {
    // FastGPT's web client sends `data: {datasetId}` (postTemplateDatasetCollection); the named header of its template.
    const form = new FormData();
    form.append('data', JSON.stringify({ datasetId }));
    const csv = 'q,a,index\n"退款多久到账？","三个工作日内。","退款时间"\n';
    form.append('file', new Blob([new TextEncoder().encode(csv)], { type: 'text/csv' }), 'template.csv');
    const response = await fetch(`${server.url}${P.createTemplate}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${api.token.token}` },
      body: form,
    });
    const body = (await response.json()) as { code: number; data: unknown };

    expect(response.status).toBe(200);
    expect(body).toMatchObject({ code: 200, data: {} });
    const page = await api.ok<{ list: { _id: string; name: string }[] }>(api.post(P.listV2, { datasetId }));
    const id = page.list.find((c) => c.name === 'template.csv')?._id as string;
    const detail = fastgpt(fastgptCollectionDetail, await api.ok(api.get(P.detail, { id })));
    expect(detail).toMatchObject({ trainingType: 'template', type: 'file', name: 'template.csv' });
  });
});
