import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type contentClient, newContentClient, CONTENT_PATHS as P, useEmbeddingWorld } from './kb-content.helpers.ts';

// FastGPT's web client's file import through the local server (docs/knowledge-base-sources.md, "Uploads before a
// collection"): presignDatasetFilePostUrl, the PUT to the answered address with the answered headers (the local
// server's stand-in for S3), collection/create/fileId, then the same training as every file collection.

const MARKDOWN =
  '# 退货政策\n\n商品签收后七天内可以无理由退货。\n\nReturns are accepted within seven days of delivery.\n';

const world = useEmbeddingWorld();
const { server } = world;
let api: ReturnType<typeof contentClient>;
beforeAll(() => {
  ({ api } = world);
});

interface Presigned {
  url: string;
  key: string;
  headers: Record<string, string>;
  maxSize: number;
}

async function presign(client: typeof api, datasetId: string, filename: string, path: string = P.presign) {
  return client.ok<Presigned>(client.post(path, { datasetId, filename }));
}

/** The browser's PUT, as FastGPT's putFileToS3 sends it: the answered headers, the file as the body. */
function put(target: Pick<Presigned, 'url' | 'headers'>, body: string | Uint8Array): Promise<Response> {
  return fetch(target.url, { method: 'PUT', headers: target.headers, body });
}

describe("a file imported as FastGPT's web client imports it", () => {
  it('uploads to the presigned address, makes the collection from its key, and trains it', async () => {
    const datasetId = await api.dataset();

    const target = await presign(api, datasetId, '退货政策.md');
    const uploaded = await put(target, MARKDOWN);
    const created = await api.ok<{ collectionId: string; results: { insertLen: number } }>(
      api.post(P.createFileId, { datasetId, fileId: target.key, trainingType: 'chunk', chunkSize: 64 }),
    );

    expect(target).toMatchObject({ key: expect.stringMatching(`^dataset/${datasetId}/`), maxSize: 10 * 1024 * 1024 });
    expect(uploaded.status).toBe(200);
    expect(uploaded.headers.get('etag')).toBeTruthy();
    expect(created.results).toEqual({ insertLen: 0 });
    const detail = await api.trained(created.collectionId);
    expect(detail).toMatchObject({ status: 'ready', type: 'file', name: '退货政策.md', hasError: false });
    const data = await api.ok<{ list: { q: string }[] }>(
      api.post(P.dataV2, { collectionId: created.collectionId, pageSize: 30 }),
    );
    expect(data.list.map((d) => d.q).join('\n')).toContain('七天内');
    const found = await api.ok<{ list: { q: string }[] }>(
      api.post('/api/core/dataset/searchTest', { datasetId, text: '退货', searchMode: 'fullTextRecall', limit: 2000 }),
    );
    expect(found.list.map((d) => d.q).join('\n')).toContain('无理由退货');
  });

  it("answers the older path (v4.14's) the same way, and removes the upload once it is a collection", async () => {
    const datasetId = await api.dataset();
    const target = await presign(api, datasetId, 'guide.txt', P.presignV1);
    await put(target, 'Seven days.');

    await api.ok(api.post(P.createFileId, { datasetId, fileId: target.key }));
    const again = await api.post(P.createFileId, { datasetId, fileId: target.key });

    expect(again.status).toBe(404);
    expect(again.body).toMatchObject({ code: 507002, statusText: 'fileNotFound' });
    const team = api.token.teamId;
    const left = await readdir(join(server.dataDir, 'kb-sources', 'uploads', team)).catch(() => []);
    expect(left).toEqual([]);
  });
});

describe('uploads kept to their team, knowledge base, type and size', () => {
  it("refuses another team's key and a key of another knowledge base, as a file that does not exist", async () => {
    const other = await newContentClient(server);
    const [mine, theirs, second] = [await api.dataset(), await other.dataset(), await api.dataset()];
    const target = await presign(api, mine, 'a.md');
    await put(target, MARKDOWN);

    const crossTeam = await other.post(P.createFileId, { datasetId: theirs, fileId: target.key });
    const crossDataset = await api.post(P.createFileId, { datasetId: second, fileId: target.key });
    const forged = await other.post(P.createFileId, { datasetId: mine, fileId: target.key });

    expect(crossTeam.body).toMatchObject({ code: 507002, statusText: 'fileNotFound' });
    expect(crossDataset.body).toMatchObject({ code: 507002, statusText: 'fileNotFound' });
    // Another team naming this team's knowledge base: its own upload store holds nothing under that key either.
    expect(forged.status).toBe(404);
    await api.ok(api.post(P.createFileId, { datasetId: mine, fileId: target.key }));
  });

  it('refuses a type the product does not read, and an unknown knowledge base, before any address is made', async () => {
    const datasetId = await api.dataset();

    const exe = await api.post(P.presign, { datasetId, filename: 'setup.exe' });
    const unknown = await api.post(P.presign, { datasetId: 'f'.repeat(24), filename: 'a.md' });

    expect(exe.status).toBe(400);
    expect(exe.body).toMatchObject({ code: 507000, statusText: 'invalidParams' });
    expect(String(exe.body.message)).toContain('.exe');
    expect(unknown.body).toMatchObject({ code: 501002, statusText: 'unExistDataset' });
  });

  it('refuses an altered or re-typed address, and a body over 10 MB, as S3 does (nothing kept)', async () => {
    const datasetId = await api.dataset();
    const target = await presign(api, datasetId, 'a.md');

    const renamed = await put({ ...target, url: target.url.replace('name=a.md', 'name=b.md') }, MARKDOWN);
    const retyped = await put({ ...target, headers: { 'content-type': 'text/html' } }, MARKDOWN);
    const large = await put(target, new Uint8Array(10 * 1024 * 1024 + 1).fill(0x61));

    expect(renamed.status).toBe(403);
    expect(await renamed.text()).toContain('<Code>SignatureDoesNotMatch</Code>');
    expect(retyped.status).toBe(403);
    expect(large.status).toBe(400);
    expect(await large.text()).toContain('<Code>EntityTooLarge</Code>');
    const refused = await api.post(P.createFileId, { datasetId, fileId: target.key });
    expect(refused.body).toMatchObject({ code: 507002 });
  });

  it('refuses at create an upload whose content does not match its name, and stores no collection', async () => {
    const datasetId = await api.dataset();
    const target = await presign(api, datasetId, 'report.pdf');
    await put(target, 'not a pdf at all');

    const refused = await api.post(P.createFileId, { datasetId, fileId: target.key });

    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: 507000, statusText: 'invalidParams' });
    const page = await api.ok<{ total: number }>(api.post(P.listV2, { datasetId }));
    expect(page.total).toBe(0);
  });
});
