import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bagOfWordsEmbedding } from '#test/support/fake-embeddings';
import { type FakeUpstream, startFakeOpenAi } from '#test/support/fake-upstreams';
import { useTestServer } from '#test/support/local-server';
import { makeDocx, makePdf } from '#test/support/source-files';
import { callProxy, expectData } from './import-http.helpers.ts';
import { ROWS_PATH } from './import-rows.helpers.ts';
import { type contentClient, newContentClient, CONTENT_PATHS as P } from './kb-content.helpers.ts';

// Every source a FastGPT client sends, through `npm start`'s server (docs/knowledge-base-sources.md): a link to a local
// page and an upload of each file type, trained through an imported channel, then found by searchTest in each mode.

const TOPICS = {
  txt: 'Glaciers are slow rivers of ice that carve valleys as they move downhill over centuries.',
  md: 'Volcanoes erupt when molten magma rises through cracks in the crust of the planet.',
  html: 'Honeybees communicate the direction of flowers to the hive through a waggle dance.',
  csv: 'Saturn has bright rings made of countless particles of ice and rock orbiting the planet.',
  pdf: 'Penguins cannot fly but they swim fast through cold southern oceans hunting fish.',
  docx: 'Lighthouses warn ships at night with rotating lamps placed on rocky coastlines.',
  link: 'Coral reefs are built by tiny animals called polyps that live in warm shallow seas.',
} as const;
type Source = keyof typeof TOPICS;

const QUESTIONS: Record<Source, string> = {
  txt: 'How do glaciers carve valleys?',
  md: 'Why do volcanoes erupt magma?',
  html: 'How do honeybees tell the hive where flowers are?',
  csv: 'What are the rings of Saturn made of?',
  pdf: 'Can penguins fly or swim?',
  docx: 'How do lighthouses warn ships at night?',
  link: 'Who builds coral reefs in warm seas?',
};

const server = useTestServer({ RELAY_ALLOWED_HOSTS: '127.0.0.1', LINK_ALLOWED_HOSTS: '127.0.0.1' });
let upstream: FakeUpstream;
let page: Server;
let api: ReturnType<typeof contentClient>;
let datasetId: string;
const collections = new Map<Source, string>();

function bearer(): string {
  return `Bearer ${api.token.token}`;
}

async function upload(name: string, type: string, bytes: Uint8Array): Promise<string> {
  const form = new FormData();
  form.append('data', JSON.stringify({ datasetId }));
  form.append('file', new Blob([bytes], { type }), name);
  const response = await fetch(`${server.url}${P.createLocalFile}`, {
    method: 'POST',
    headers: { Authorization: bearer() },
    body: form,
  });
  const body = (await response.json()) as { code: number; data: { collectionId: string; results: unknown } };
  expect(body).toMatchObject({ code: 200, data: { results: { insertLen: 0 } } });
  return body.data.collectionId;
}

beforeAll(async () => {
  upstream = await startFakeOpenAi({ embed: bagOfWordsEmbedding() });
  page = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<html><head><title>Reefs</title></head><body><nav>menu</nav><p>${TOPICS.link}</p></body></html>`);
  });
  await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
  const columns = ['id', 'type', 'key', 'status', 'name', 'base_url', 'models', 'group'];
  const key = 'sk-kb-sources-e2e-0123456789abcdef';
  const rows = [[1, 1, key, 1, 'embeddings', upstream.url, 'text-embedding-3-small', 'default']];
  expectData(await callProxy(server, { method: 'POST', path: ROWS_PATH, json: { columns, rows } }));
  api = await newContentClient(server);
  datasetId = await api.dataset('text-embedding-3-small');

  const text = (s: string) => new TextEncoder().encode(s);
  collections.set('txt', await upload('glaciers.txt', 'text/plain', text(TOPICS.txt)));
  collections.set('md', await upload('volcanoes.md', 'text/markdown', text(`# Volcanoes\n\n${TOPICS.md}\n`)));
  const html = `<html><body><h1>Bees</h1><p>${TOPICS.html}</p></body></html>`;
  collections.set('html', await upload('bees.html', 'text/html', text(html)));
  collections.set('csv', await upload('saturn.csv', 'text/csv', text(`topic,fact\nSaturn,"${TOPICS.csv}"\n`)));
  collections.set('pdf', await upload('penguins.pdf', 'application/pdf', makePdf([[TOPICS.pdf]])));
  const docx = await makeDocx([{ heading: 'Lighthouses' }, TOPICS.docx]);
  collections.set(
    'docx',
    await upload('lighthouses.docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', docx),
  );
  const link = `http://127.0.0.1:${(page.address() as AddressInfo).port}/reefs`;
  const created = await api.ok<{ collectionId: string }>(api.post(P.createLink, { datasetId, link }));
  collections.set('link', created.collectionId);

  for (const id of collections.values()) expect(await api.trained(id, 30_000)).toMatchObject({ status: 'ready' });
}, 90_000);
afterAll(async () => {
  await upstream?.close();
  await new Promise((resolve) => page?.close(resolve));
});

describe('each source type, trained and found', () => {
  for (const mode of ['embedding', 'fullTextRecall', 'mixedRecall']) {
    it.each(Object.keys(TOPICS) as Source[])(`${mode}: the %s source answers its question first`, async (source) => {
      const result = await api.ok<{ list: { collectionId: string; q: string }[] }>(
        api.post('/api/core/dataset/searchTest', { datasetId, text: QUESTIONS[source], searchMode: mode }),
      );
      expect(result.list[0]?.collectionId).toBe(collections.get(source));
      expect(result.list[0]?.q).toContain(TOPICS[source].split(' ').slice(0, 3).join(' '));
    });
  }
});
