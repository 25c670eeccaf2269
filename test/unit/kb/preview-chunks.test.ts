import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PreviewChunksDeps, previewChunks } from '#functions/kb-preview-chunks/preview-chunks';
import { parseAllowList } from '#shared/allow-list';
import { DATASET_REQUEST_ERRORS } from '#shared/envelopes/dataset';
import { type CallerContext, validRequest } from '#shared/http';
import { newObjectId } from '#shared/ids';
import { splitTextAsFastGpt } from '#shared/kb/chunking';
import { storeCollection } from '#shared/kb/collections';
import { fileText } from '#shared/kb/sources/files';
import { createSourceReader } from '#shared/kb/sources/reader';
import { type PreviewChunksBody, previewChunksBodySchema } from '#shared/kb/sources/settings';
import { type StoredUpload, type UploadStore, uploadKey } from '#shared/kb/sources/upload-stores';
import { trainingPieces } from '#shared/kb/training-items';
import type { DatasetRecord } from '#shared/repositories/datasets';
import { memoryFileStore, storeKnowledgeBase, storeTextCollection, useKbContentTables } from '#test/support/kb-content';

// functions/kb-preview-chunks (docs/knowledge-base-sources.md, "Previewing chunks") on real tables, the real reader
// and parsers, and the splitter the training uses.

const world = useKbContentTables();
const TEAM = 'team-preview';
const OTHER_TEAM = 'team-preview-other';
const caller: CallerContext = { scope: 'dataset', teamId: TEAM, tmbId: 'member-1', tokenId: 'token-1' };

/** Thirty short paragraphs: at chunkSize 64, many more than ten chunks. */
const TEXT = Array.from(
  { length: 30 },
  (_, i) => `Paragraph ${i + 1} says how refunds work for order ${i + 1}, and when they are paid back.`,
).join('\n\n');

/** Uploads in memory, by team and upload id, as the upload stores keep them. */
function memoryUploads() {
  const uploads = new Map<string, StoredUpload>();
  const store: Pick<UploadStore, 'getUpload'> = {
    getUpload: async (teamId, uploadId) => uploads.get(`${teamId}/${uploadId}`),
  };
  const put = (teamId: string, datasetId: string, name: string, text: string) => {
    const uploadId = newObjectId();
    const bytes = new TextEncoder().encode(text);
    uploads.set(`${teamId}/${uploadId}`, { bytes, name, datasetId, contentType: 'text/plain' });
    return uploadKey(datasetId, uploadId);
  };
  return { store, put };
}

const files = memoryFileStore();
const uploads = memoryUploads();
const reader = (allowed: string[] = []) =>
  createSourceReader({ store: files, allowedHosts: parseAllowList(allowed), link: { timeoutMs: 5_000 } });
const depsWith = (allowed: string[] = []): PreviewChunksDeps => ({
  datasets: world.datasets,
  content: world.content,
  uploads: uploads.store,
  files,
  sources: reader(allowed),
  fileText,
  split: splitTextAsFastGpt,
});

const body = (fields: Record<string, unknown>): PreviewChunksBody =>
  validRequest(fields, previewChunksBodySchema, DATASET_REQUEST_ERRORS);
const preview = (fields: Record<string, unknown>, deps = depsWith()) =>
  previewChunks({ body: body(fields), caller }, deps);
/** What the training stores of `text` with these settings. */
const trained = (text: string, chunkSize: number, trainingType: 'chunk' | 'qa' = 'chunk') =>
  trainingPieces(text, { trainingType, chunkSize }, splitTextAsFastGpt).map((q) => ({ q, a: '' }));

let dataset: DatasetRecord;
let otherDataset: DatasetRecord;
let server: http.Server;
let base: string;

beforeAll(async () => {
  dataset = await storeKnowledgeBase(world, TEAM);
  otherDataset = await storeKnowledgeBase(world, TEAM);
  server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<html><body><nav>Menu Home About</nav><div id="main"><p>Refunds take five days.</p></div></body></html>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
});

describe('previewChunks: fileLocal (an upload before its collection)', () => {
  it('answers the first 10 chunks the training will store, and their total', async () => {
    const key = uploads.put(TEAM, dataset.id, 'refunds.txt', TEXT);

    const answer = await preview({ datasetId: dataset.id, type: 'fileLocal', sourceId: key, chunkSize: 64 });

    const expected = trained(TEXT, 64);
    expect(expected.length).toBeGreaterThan(10);
    expect(answer).toEqual({ chunks: expected.slice(0, 10), total: expected.length });
  });

  it('cuts with the default chunk size, and without overlap for Q&A training, as the training does', async () => {
    // One long paragraph: chunks overlap only where a paragraph is cut at its sentences.
    const prose = Array.from({ length: 400 }, (_, i) => `Sentence ${i + 1} explains how a refund is paid.`).join(' ');
    const key = uploads.put(TEAM, dataset.id, 'refunds.txt', prose);

    const byDefault = await preview({ datasetId: dataset.id, type: 'fileLocal', sourceId: key });
    const qa = await preview({ datasetId: dataset.id, type: 'fileLocal', sourceId: key, trainingType: 'qa' });

    expect(byDefault).toEqual({ chunks: trained(prose, 1000).slice(0, 10), total: trained(prose, 1000).length });
    expect(qa).toEqual({ chunks: trained(prose, 1000, 'qa').slice(0, 10), total: trained(prose, 1000, 'qa').length });
    expect(qa.total).toBeGreaterThan(1);
    expect(qa.total).toBeLessThan(byDefault.total);
  });

  it('answers as many chunks as previewLimit asks, at most 50', async () => {
    const key = uploads.put(TEAM, dataset.id, 'refunds.txt', TEXT);

    const answer = await preview({
      datasetId: dataset.id,
      type: 'fileLocal',
      sourceId: key,
      chunkSize: 64,
      previewLimit: 20,
    });

    expect(answer.chunks).toEqual(trained(TEXT, 64).slice(0, 20));
    expect(() => body({ datasetId: dataset.id, type: 'fileLocal', sourceId: key, previewLimit: 51 })).toThrow(
      expect.objectContaining({ code: 507000 }),
    );
  });

  it("answers 404 fileNotFound for another team's upload, though its key names the caller's knowledge base", async () => {
    const key = uploads.put(OTHER_TEAM, dataset.id, 'secret.txt', 'Another team’s text.');

    await expect(preview({ datasetId: dataset.id, type: 'fileLocal', sourceId: key })).rejects.toMatchObject({
      httpStatus: 404,
      code: 507002,
      statusText: 'fileNotFound',
    });
  });

  it('answers 404 fileNotFound for an upload of another knowledge base of the team, whatever the key says', async () => {
    const ofOther = uploads.put(TEAM, otherDataset.id, 'other.txt', 'Other knowledge base.');
    const forged = ofOther.replace(otherDataset.id, dataset.id);

    for (const sourceId of [ofOther, forged, 'dataset/../../etc/passwd', 'not-a-key']) {
      await expect(preview({ datasetId: dataset.id, type: 'fileLocal', sourceId })).rejects.toMatchObject({
        httpStatus: 404,
        code: 507002,
      });
    }
  });

  it("previews a stored file by its id, as FastGPT's re-training page sends a file collection's, for its team only", async () => {
    const fileId = newObjectId();
    await files.put({
      teamId: TEAM,
      fileId,
      name: 'refunds.txt',
      contentType: 'text/plain',
      bytes: new TextEncoder().encode(TEXT),
    });

    const answer = await preview({ datasetId: dataset.id, type: 'fileLocal', sourceId: fileId, chunkSize: 64 });

    expect(answer.total).toBe(trained(TEXT, 64).length);
    expect(answer.chunks).toEqual(trained(TEXT, 64).slice(0, 10));
    const foreign = previewChunks(
      {
        body: body({ datasetId: dataset.id, type: 'fileLocal', sourceId: fileId }),
        caller: { ...caller, teamId: OTHER_TEAM },
      },
      depsWith(),
    );
    await expect(foreign).rejects.toMatchObject({ httpStatus: 404 });
  });

  it("answers 404 unExistDataset for another team's knowledge base before reading any upload", async () => {
    const foreign = await storeKnowledgeBase(world, OTHER_TEAM);
    const key = uploads.put(OTHER_TEAM, foreign.id, 'secret.txt', 'Another team’s text.');

    await expect(preview({ datasetId: foreign.id, type: 'fileLocal', sourceId: key })).rejects.toMatchObject({
      httpStatus: 404,
      code: 501002,
    });
  });

  it('answers 400 for an upload whose content does not match its name', async () => {
    const key = uploads.put(TEAM, dataset.id, 'handbook.pdf', 'plain text, not a PDF');

    await expect(preview({ datasetId: dataset.id, type: 'fileLocal', sourceId: key })).rejects.toMatchObject({
      httpStatus: 400,
      code: 507000,
    });
  });
});

describe('previewChunks: link', () => {
  it("reads the page under the link rules, keeps the selector's elements, and cuts its text", async () => {
    const answer = await preview(
      { datasetId: dataset.id, type: 'link', sourceId: `${base}/refunds`, selector: '#main' },
      depsWith(['127.0.0.1']),
    );

    expect(answer).toEqual({ chunks: [{ q: 'Refunds take five days.', a: '' }], total: 1 });
  });

  it('refuses a link to the metadata address (400) whatever LINK_ALLOWED_HOSTS allows', async () => {
    const everything = depsWith(['0.0.0.0/0', '169.254.169.254']);

    for (const sourceId of ['http://169.254.169.254/latest/meta-data/', 'http://[::ffff:169.254.169.254]/']) {
      await expect(preview({ datasetId: dataset.id, type: 'link', sourceId }, everything)).rejects.toMatchObject({
        httpStatus: 400,
        code: 507000,
        message: expect.stringMatching(/refused/),
      });
    }
  });

  it('refuses a loopback page that LINK_ALLOWED_HOSTS does not list', async () => {
    await expect(
      preview({ datasetId: dataset.id, type: 'link', sourceId: `${base}/refunds` }, depsWith([])),
    ).rejects.toMatchObject({ httpStatus: 400, code: 507000 });
  });
});

describe('previewChunks: reTraining (a collection read again)', () => {
  it("cuts a text collection's stored text with the body's settings over the collection's", async () => {
    const fileId = newObjectId();
    await files.put({ teamId: TEAM, fileId, name: 'notes.txt', contentType: 'text/plain', bytes: Buffer.from(TEXT) });
    const collection = await storeTextCollection(world, dataset, { fileId });

    const kept = await preview({ datasetId: dataset.id, type: 'reTraining', sourceId: collection.id });
    const changed = await preview({
      datasetId: dataset.id,
      type: 'reTraining',
      sourceId: collection.id,
      chunkSize: 64,
    });

    expect(kept).toEqual({ chunks: trained(TEXT, 1000).slice(0, 10), total: trained(TEXT, 1000).length });
    expect(changed).toEqual({ chunks: trained(TEXT, 64).slice(0, 10), total: trained(TEXT, 64).length });
  });

  it("shows a backup collection's rows as they are, as its training takes them", async () => {
    const fileId = newObjectId();
    const csv = 'q,a,indexes\n"退款多久到账？","三个工作日内。","退款时间"\n"Shipping?","Free over 50.",\n';
    await files.put({ teamId: TEAM, fileId, name: 'backup.csv', contentType: 'text/csv', bytes: Buffer.from(csv) });
    const collection = await storeCollection(
      {
        teamId: TEAM,
        tmbId: 'member-1',
        datasetId: dataset.id,
        parentId: null,
        name: 'backup.csv',
        type: 'file',
        settings: { trainingType: 'backup', chunkSize: 1000 },
        fileId,
        train: false,
      },
      { datasets: world.datasets, content: world.content, queue: { send: async () => {} }, now: () => new Date() },
    );

    const answer = await preview({ datasetId: dataset.id, type: 'reTraining', sourceId: collection.id, chunkSize: 64 });

    expect(answer).toEqual({
      chunks: [
        { q: '退款多久到账？', a: '三个工作日内。' },
        { q: 'Shipping?', a: 'Free over 50.' },
      ],
      total: 2,
    });
  });

  it("answers 404 unExistCollection for another team's collection and for one of another knowledge base", async () => {
    const foreignDataset = await storeKnowledgeBase(world, OTHER_TEAM);
    const foreign = await storeTextCollection(world, foreignDataset, { fileId: newObjectId() });
    const elsewhere = await storeTextCollection(world, otherDataset, { fileId: newObjectId() });

    for (const sourceId of [foreign.id, elsewhere.id, newObjectId()]) {
      await expect(preview({ datasetId: dataset.id, type: 'reTraining', sourceId })).rejects.toMatchObject({
        httpStatus: 404,
        code: 501003,
      });
    }
  });

  it('answers 400 for a collection without a source (data entered by hand)', async () => {
    const manual = await storeTextCollection(world, dataset);

    await expect(preview({ datasetId: dataset.id, type: 'reTraining', sourceId: manual.id })).rejects.toMatchObject({
      httpStatus: 400,
      code: 507000,
    });
  });
});

describe('previewChunks: the body', () => {
  it('answers 400 for the types this product does not serve (externalFile, apiFile), before reading anything', async () => {
    for (const type of ['externalFile', 'apiFile']) {
      await expect(
        preview({ datasetId: dataset.id, type, sourceId: 'https://example.com/a.pdf' }),
      ).rejects.toMatchObject({ httpStatus: 400, code: 507000, message: expect.stringContaining(type) });
    }
  });

  it('answers 400 invalidParams for an unknown type, and 400 missingParams without a type or a sourceId', () => {
    const fields = { datasetId: dataset.id, type: 'fileLocal', sourceId: 'dataset/x/y' };

    expect(() => body({ ...fields, type: 'database' })).toThrow(expect.objectContaining({ code: 507000 }));
    expect(() => body({ ...fields, type: undefined })).toThrow(expect.objectContaining({ code: 507004 }));
    expect(() => body({ ...fields, sourceId: '  ' })).toThrow(expect.objectContaining({ code: 507004 }));
  });
});
