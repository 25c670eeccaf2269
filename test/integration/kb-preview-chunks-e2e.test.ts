import { beforeAll, describe, expect, it } from 'vitest';
import { type contentClient, newContentClient, CONTENT_PATHS as P, useEmbeddingWorld } from './kb-content.helpers.ts';

// FastGPT's web client's import with its preview step, through the local server (docs/knowledge-base-sources.md,
// "Previewing chunks"): presignDatasetFilePostUrl, the PUT to the answered address, file/getPreviewChunks of the
// upload's key, then collection/create/fileId; the training stores the very chunks the preview showed.

/** Twelve sections: at chunkSize 64, more chunks than the preview's first ten. */
const MARKDOWN = Array.from(
  { length: 12 },
  (_, i) =>
    `## 第${i + 1}条\n\n商品签收后七天内可以无理由退货。Returns of order ${i + 1} are accepted within seven days.`,
).join('\n\n');

const world = useEmbeddingWorld();
const { server } = world;
let api: ReturnType<typeof contentClient>;
beforeAll(() => {
  ({ api } = world);
});

interface Preview {
  chunks: { q: string; a: string }[];
  total: number;
}

describe("the import page's preview step, as FastGPT's web client sends it", () => {
  it('previews an uploaded file (fileLocal) with its total, and the training then stores exactly those chunks', async () => {
    const datasetId = await api.dataset();
    const target = await api.ok<{ url: string; key: string; headers: Record<string, string> }>(
      api.post(P.presign, { datasetId, filename: 'returns.md' }),
    );
    const uploaded = await fetch(target.url, { method: 'PUT', headers: target.headers, body: MARKDOWN });
    // The web client sends its whole form; the fields this product does not use are ignored.
    const settings = { trainingType: 'chunk', chunkSize: 64, chunkSettingMode: 'custom', imageIndex: false };

    const preview = await api.ok<Preview>(
      api.post(P.preview, { datasetId, type: 'fileLocal', sourceId: target.key, overlapRatio: 0.2, ...settings }),
    );
    const created = await api.ok<{ collectionId: string }>(
      api.post(P.createFileId, { datasetId, fileId: target.key, ...settings }),
    );

    expect(uploaded.status).toBe(200);
    expect(preview.total).toBeGreaterThan(10);
    expect(preview.chunks).toHaveLength(10);
    expect(preview.chunks[0]).toEqual({ q: expect.stringContaining('第1条'), a: '' });
    expect(await api.trained(created.collectionId)).toMatchObject({ status: 'ready', dataAmount: preview.total });
    const data = await api.ok<{ list: { q: string; chunkIndex: number }[] }>(
      api.post(P.dataV2, { collectionId: created.collectionId, pageSize: 30 }),
    );
    const stored = [...data.list].sort((x, y) => x.chunkIndex - y.chunkIndex).map((d) => d.q);
    expect(stored.slice(0, 10)).toEqual(preview.chunks.map((c) => c.q));
  });

  it("answers 404 for another team's upload key, and 400 for a type this product does not serve", async () => {
    const datasetId = await api.dataset();
    const target = await api.ok<{ url: string; key: string; headers: Record<string, string> }>(
      api.post(P.presign, { datasetId, filename: 'private.txt' }),
    );
    await fetch(target.url, { method: 'PUT', headers: target.headers, body: 'Private text of the first team.' });
    const other = await newContentClient(server);
    const otherDataset = await other.dataset();

    const foreign = await other.post(P.preview, {
      datasetId: otherDataset,
      type: 'fileLocal',
      sourceId: target.key.replace(datasetId, otherDataset),
    });
    const notServed = await api.post(P.preview, { datasetId, type: 'apiFile', sourceId: 'file-1' });

    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ code: 507002, statusText: 'fileNotFound', message: expect.any(String), data: null });
    expect(notServed.status).toBe(400);
    expect(notServed.body).toMatchObject({ code: 507000, statusText: 'invalidParams', data: null });
  });
});
