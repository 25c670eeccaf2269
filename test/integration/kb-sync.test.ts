import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bagOfWordsEmbedding } from '#test/support/fake-embeddings';
import { type FakeUpstream, startFakeOpenAi } from '#test/support/fake-upstreams';
import { fastgptSyncResult } from '#test/support/fastgpt-content-types';
import { useTestServer } from '#test/support/local-server';
import { expectError } from './create-dataset.helpers.ts';
import { callProxy, expectData } from './import-http.helpers.ts';
import { ROWS_PATH } from './import-rows.helpers.ts';
import { type contentClient, newContentClient, CONTENT_PATHS as P } from './kb-content.helpers.ts';

// FastGPT's collection/sync of a link collection through `npm start`'s server (docs/knowledge-base-sources.md,
// "Sync"): a local page that changes between calls, trained through an imported channel, searched after each sync.

const server = useTestServer({ RELAY_ALLOWED_HOSTS: '127.0.0.1', LINK_ALLOWED_HOSTS: '127.0.0.1' });
const OLD = 'Coral reefs are built by tiny animals called polyps that live in warm shallow seas.';
const NEW = 'Mangrove forests grow along tropical coastlines where their roots shelter young fish.';
let upstream: FakeUpstream;
let page: Server;
/** What the page answers now: its text, or a redirect. */
let serving: { text: string } | { redirect: string } = { text: OLD };
let api: ReturnType<typeof contentClient>;
let other: ReturnType<typeof contentClient>;
let datasetId: string;
let link: string;

beforeAll(async () => {
  upstream = await startFakeOpenAi({ embed: bagOfWordsEmbedding() });
  page = createServer((_req, res) => {
    if ('redirect' in serving) {
      res.writeHead(302, { location: serving.redirect });
      return void res.end();
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<html><head><title>Coasts</title></head><body><p>${serving.text}</p></body></html>`);
  });
  await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
  link = `http://127.0.0.1:${(page.address() as AddressInfo).port}/coasts`;
  const columns = ['id', 'type', 'key', 'status', 'name', 'base_url', 'models', 'group'];
  const rows = [
    [1, 1, 'sk-kb-sync-0123456789abcdef', 1, 'embeddings', upstream.url, 'text-embedding-3-small', 'default'],
  ];
  expectData(await callProxy(server, { method: 'POST', path: ROWS_PATH, json: { columns, rows } }));
  api = await newContentClient(server);
  other = await newContentClient(server);
  datasetId = await api.dataset('text-embedding-3-small');
}, 60_000);
afterAll(async () => {
  await upstream?.close();
  await new Promise((resolve) => page?.close(resolve));
});

/** A link collection of the page as it is served now, trained. */
async function linkCollection(): Promise<string> {
  serving = { text: OLD };
  const { collectionId } = await api.ok<{ collectionId: string }>(api.post(P.createLink, { datasetId, link }));
  expect(await api.trained(collectionId, 30_000)).toMatchObject({ status: 'ready' });
  return collectionId;
}

const chunkIds = async (collectionId: string) =>
  (await api.ok<{ list: { _id: string; q: string }[] }>(api.post(P.dataV2, { collectionId, pageSize: 30 }))).list;
/** The texts of `collectionId` a full-text search finds for `text`. */
const found = async (collectionId: string, text: string) =>
  (
    await api.ok<{ list: { collectionId: string; q: string }[] }>(
      api.post('/api/core/dataset/searchTest', { datasetId, text, searchMode: 'fullTextRecall' }),
    )
  ).list
    .filter((r) => r.collectionId === collectionId)
    .map((r) => r.q);

describe('collection/sync of a link collection', () => {
  it('answers sameRaw while the page is unchanged, and keeps its chunks', async () => {
    const id = await linkCollection();
    const before = await chunkIds(id);

    const answer = await api.ok(api.post(P.sync, { collectionId: id }));

    // FastGPT's DatasetCollectionSyncResultEnum, as its web client's postLinkCollectionSync reads it.
    expect(fastgptSyncResult.parse(answer)).toBe('sameRaw');
    expect(await api.ok(api.get(P.detail, { id }))).toMatchObject({ status: 'ready' });
    expect(await chunkIds(id)).toEqual(before);
  });

  it('trains it again when the page changed: the same id, the new text found, the old one gone', async () => {
    const id = await linkCollection();
    serving = { text: NEW };

    expect(await api.ok(api.post(P.sync, { collectionId: id }))).toBe('success');
    expect(await api.trained(id, 30_000)).toMatchObject({ _id: id, status: 'ready', dataAmount: 1 });

    expect((await chunkIds(id)).map((c) => c.q)).toEqual([expect.stringContaining('Mangrove forests')]);
    expect(await found(id, 'mangrove roots shelter fish')).toEqual([expect.stringContaining('Mangrove')]);
    expect(await found(id, 'coral reefs polyps')).toEqual([]);
    expect(await api.ok(api.post(P.sync, { collectionId: id }))).toBe('sameRaw');
  });

  it('answers 400 with why when the page now redirects to a metadata address, and changes nothing', async () => {
    const id = await linkCollection();
    const before = await chunkIds(id);
    serving = { redirect: 'http://169.254.169.254/latest/meta-data/' };

    const reply = await api.post(P.sync, { collectionId: id });

    expectError(reply, 400, 507000);
    expect(JSON.stringify(reply.body)).toMatch(/refused|not allowed|address/);
    expect(await api.ok(api.get(P.detail, { id }))).toMatchObject({ status: 'ready' });
    expect(await chunkIds(id)).toEqual(before);
  });

  it('answers 501001 for a collection that is not a link, 501003 for another team’s, 507004 without an id', async () => {
    const id = await linkCollection();
    const text = await api.ok<{ collectionId: string }>(
      api.post(P.createText, { datasetId, name: 'T', text: 'Some text.' }),
    );

    expectError(await api.post(P.sync, { collectionId: text.collectionId }), 400, 501001);
    expectError(await other.post(P.sync, { collectionId: id }), 404, 501003);
    expectError(await api.post(P.sync, {}), 400, 507004);
  });
});
