import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signSourceToken, sourceLinkKey } from '#shared/kb/sources/source-links';
import { captureOutput } from '#test/support/capture-output';
import { useTestServer } from '#test/support/local-server';
import { makeDocx, makePdf } from '#test/support/source-files';

/*
 * The source calls through `npm start`'s server, as a client sends them: multipart uploads cross the local gateway
 * base64-encoded as API Gateway hands them over, and every answer is checked against the OpenAPI document.
 */

// Logs at DEBUG so the check that no stored text reaches them can fail.
const server = useTestServer({ LOG_LEVEL: 'DEBUG' });
const UNKNOWN = 'ffffffffffffffffffffffff';
const SECRET_TEXT = 'customer-confidential-7f3a9c';
let output: ReturnType<typeof captureOutput>;

beforeAll(() => {
  output = captureOutput();
});
afterAll(() => output.restore());

function token(): string {
  const first = server.credentials.accessTokens[0];
  if (!first) throw new Error('the local server made no access token');
  return first.token;
}

async function upload(file: { name: string; type: string; bytes: Uint8Array } | undefined, data: unknown) {
  const form = new FormData();
  if (data !== undefined) form.append('data', JSON.stringify(data));
  if (file) form.append('file', new Blob([file.bytes], { type: file.type }), file.name);
  const response = await fetch(`${server.url}/api/core/dataset/collection/create/localFile`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token()}` },
    body: form,
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function postJson(path: string, body: unknown) {
  const response = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token()}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function storedFiles(): Promise<string[]> {
  return readdir(join(server.dataDir, 'kb-sources'), { recursive: true }).catch(() => []);
}

describe('POST /api/core/dataset/collection/create/localFile through the local server', () => {
  it('reads a binary upload intact (a DOCX) and answers 501002 for a knowledge base of no one, leaving no file', async () => {
    const docx = await makeDocx([SECRET_TEXT]);

    const reply = await upload(
      { name: 'policy.docx', type: 'application/octet-stream', bytes: docx },
      { datasetId: UNKNOWN, chunkSize: 800 },
    );

    expect(reply).toMatchObject({ status: 404, body: { code: 501002, statusText: 'unExistDataset', data: null } });
    // The upload was stored before the create failed, then removed: at most the team's empty directory is left.
    expect((await storedFiles()).filter((name) => name.includes('/'))).toEqual([]);
  });

  it('refuses a file whose content does not match its name, and one of a type it does not read', async () => {
    const asPdf = await upload(
      { name: 'notes.pdf', type: 'application/pdf', bytes: new TextEncoder().encode(SECRET_TEXT) },
      { datasetId: UNKNOWN },
    );
    const asTxt = await upload(
      { name: 'scan.txt', type: 'text/plain', bytes: makePdf([['x']]) },
      { datasetId: UNKNOWN },
    );
    const exe = await upload(
      { name: 'tool.exe', type: 'application/octet-stream', bytes: new Uint8Array([1]) },
      {
        datasetId: UNKNOWN,
      },
    );

    expect(asPdf).toMatchObject({ status: 400, body: { code: 507000, statusText: 'invalidParams' } });
    expect(String(asPdf.body.message)).toMatch(/does not match its \.pdf name/);
    expect(asTxt).toMatchObject({ status: 400, body: { code: 507000 } });
    expect(exe).toMatchObject({ status: 400, body: { code: 507000 } });
    expect(String(exe.body.message)).toMatch(/\.exe are not supported/);
  });

  it('refuses an upload over 10 MB with the FastGPT envelope', async () => {
    const big = new Uint8Array(10 * 1024 * 1024 + 1024).fill(0x61);

    const reply = await upload({ name: 'big.txt', type: 'text/plain', bytes: big }, { datasetId: UNKNOWN });

    expect(reply).toMatchObject({ status: 413, body: { code: 507000, statusText: 'invalidParams', data: null } });
  });

  it('refuses a form without a file, without data, and a JSON body', async () => {
    expect(await upload(undefined, { datasetId: UNKNOWN })).toMatchObject({ status: 400, body: { code: 507004 } });
    const noData = await upload({ name: 'a.txt', type: 'text/plain', bytes: new Uint8Array([0x61]) }, undefined);
    expect(noData).toMatchObject({ status: 400, body: { code: 507004 } });
    const json = await postJson('/api/core/dataset/collection/create/localFile', { datasetId: UNKNOWN });
    expect(json).toMatchObject({ status: 400, body: { code: 507000 } });
  });
});

describe('POST /api/core/dataset/collection/create/link through the local server', () => {
  it('refuses a metadata address and another scheme, and answers 501002 for a knowledge base of no one', async () => {
    const path = '/api/core/dataset/collection/create/link';

    const metadata = await postJson(path, { datasetId: UNKNOWN, link: 'http://169.254.169.254/latest/meta-data/' });
    const file = await postJson(path, { datasetId: UNKNOWN, link: 'file:///etc/passwd' });
    const missing = await postJson(path, { datasetId: UNKNOWN });
    const unknown = await postJson(path, { datasetId: UNKNOWN, link: 'https://example.com/docs' });

    expect(metadata).toMatchObject({ status: 400, body: { code: 507000 } });
    expect(String(metadata.body.message)).toMatch(/refused/);
    expect(file).toMatchObject({ status: 400, body: { code: 507000 } });
    expect(missing).toMatchObject({ status: 400, body: { code: 507004 } });
    expect(unknown).toMatchObject({ status: 404, body: { code: 501002 } });
  });
});

describe('collection/read and its link through the local server', () => {
  it('answers 501003 for a collection the team does not have', async () => {
    const reply = await postJson('/api/core/dataset/collection/read', { collectionId: UNKNOWN });

    expect(reply).toMatchObject({ status: 404, body: { code: 501003, statusText: 'unExistCollection' } });
  });

  it('serves the link without a token but refuses a missing, forged or expired signature', async () => {
    const forged = signSourceToken(
      sourceLinkKey(Buffer.alloc(32, 1)),
      { teamId: 't', collectionId: UNKNOWN },
      new Date(),
    );
    for (const query of ['', '?token=abc', `?token=${forged}`]) {
      const response = await fetch(`${server.url}/api/core/dataset/collection/source${query}`, { redirect: 'manual' });
      expect(response.status).toBe(403);
      expect(await response.json()).toMatchObject({ code: 501006, statusText: 'unAuthDatasetFile', data: null });
    }
  });

  it('wrote none of the uploaded text to the logs', () => {
    expect(output.text()).not.toContain(SECRET_TEXT);
    expect(output.text()).not.toContain(token());
  });
});
