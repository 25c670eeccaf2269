/**
 * FastGPT's web client's file import as a browser makes it (docs/knowledge-base-sources.md, "Uploads before a
 * collection"): a page of another origin (FastGPT's own, in real use) asks presignDatasetFilePostUrl with a bearer
 * token, PUTs the file to the answered address with the answered headers (FastGPT's putFileToS3), then calls
 * collection/create/fileId; in Debian's Chromium, so every step passes the browser's CORS checks (preflights included)
 * against the local server and its stand-in for the bucket.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, type TestBrowser } from '#test/support/browser';
import { useTestServer } from '#test/support/local-server';
import { type contentClient, newContentClient } from '../integration/kb-content.helpers.ts';

const server = useTestServer();
let browser: TestBrowser;
let page: Server;
let pageUrl: string;
let api: ReturnType<typeof contentClient>;

beforeAll(async () => {
  api = await newContentClient(server);
  browser = await launchBrowser();
  // An empty page on a port of its own: another origin than the API's.
  page = createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>app</title>'),
  );
  await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
  pageUrl = `http://localhost:${(page.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => page?.close(resolve));
});

describe("a file imported from another origin's page, as FastGPT's web client does", () => {
  it('presigns, PUTs the file through the browser and makes the collection, every step allowed by CORS', async () => {
    const datasetId = await api.dataset();
    const tab = await browser.context.newPage();
    await tab.goto(pageUrl);

    const outcome = (await tab.evaluate(
      async ({ base, token, datasetId }) => {
        const call = async (path: string, body: unknown) => {
          const response = await fetch(`${base}${path}`, {
            method: 'POST',
            headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
            body: JSON.stringify(body),
          });
          return (await response.json()) as { code: number; data: Record<string, unknown> };
        };
        const presigned = await call('/api/core/dataset/file/presignDatasetFilePostUrl', {
          datasetId,
          filename: 'faq.md',
        });
        const { url, key, headers } = presigned.data as { url: string; key: string; headers: Record<string, string> };
        const file = new File(['# FAQ\n\nReturns within seven days.\n'], 'faq.md', { type: 'text/markdown' });
        const put = await fetch(url, { method: 'PUT', headers, body: file });
        const created = await call('/api/core/dataset/collection/create/fileId', { datasetId, fileId: key });
        return { presign: presigned.code, put: put.status, etag: put.headers.get('etag'), created };
      },
      { base: server.url, token: api.token.token, datasetId },
    )) as {
      presign: number;
      put: number;
      etag: string | null;
      created: { code: number; data: { collectionId: string } };
    };

    expect(new URL(pageUrl).origin).not.toBe(new URL(server.url).origin);
    expect(outcome.presign).toBe(200);
    expect(outcome.put).toBe(200);
    expect(outcome.etag).toMatch(/^".+"$/);
    expect(outcome.created.code).toBe(200);
    const detail = await api.ok<{ name: string; type: string }>(
      api.get('/api/core/dataset/collection/detail', { id: outcome.created.data.collectionId }),
    );
    expect(detail).toMatchObject({ name: 'faq.md', type: 'file' });
  });
});
