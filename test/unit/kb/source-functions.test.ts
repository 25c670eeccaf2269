import { describe, expect, it } from 'vitest';
import { createFileCollection } from '#functions/kb-create-source-collection/create-file';
import { createLinkCollection } from '#functions/kb-create-source-collection/create-link';
import { readCollection, type ServeSourceDeps, serveSource } from '#functions/kb-read-collection/kb-read-collection';
import { parseAllowList } from '#shared/allow-list';
import { DatasetApiError, datasetErrors } from '#shared/errors';
import type { CallerContext } from '#shared/http';
import type { CollectionRecord, NewSourceCollection, SourceFileStore } from '#shared/kb/contract';
import type { MultipartUpload } from '#shared/kb/sources/multipart';
import { createLinkBodySchema } from '#shared/kb/sources/settings';
import { SOURCE_PATH, signSourceToken, sourceLinkKey, verifySourceToken } from '#shared/kb/sources/source-links';
import * as z from '#shared/zod';
import { makePdf } from '#test/support/source-files';

const caller: CallerContext = { scope: 'dataset', teamId: 'team1', tmbId: 'member1', tokenId: 'token1' };
const DATASET = 'aaaaaaaaaaaaaaaaaaaaaaaa';
const KEY = sourceLinkKey(Buffer.alloc(32, 7));

/** Collections that record what they are asked and answer a fixed id, or fail with `failure`. */
function fakeCollections(failure?: Error) {
  const created: NewSourceCollection[] = [];
  return {
    created,
    createSourceCollection: async (input: NewSourceCollection) => {
      created.push(input);
      if (failure) throw failure;
      return { collectionId: 'c'.repeat(24) };
    },
  };
}

/** A source store in memory. */
function memoryStore() {
  const files = new Map<string, { bytes: Uint8Array; name: string; contentType: string }>();
  const store: SourceFileStore = {
    put: async (f) =>
      void files.set(`${f.teamId}/${f.fileId}`, { bytes: f.bytes, name: f.name, contentType: f.contentType }),
    get: async (teamId, fileId) => files.get(`${teamId}/${fileId}`),
    delete: async (teamId, ids) => {
      for (const id of ids) files.delete(`${teamId}/${id}`);
    },
  };
  return { files, store };
}

const linkBody = (body: Record<string, unknown>) => z.parse(createLinkBodySchema, { datasetId: DATASET, ...body });

describe('createLinkCollection', () => {
  it("creates a link collection named after its link with the body's settings and answers insertLen 0", async () => {
    const collections = fakeCollections();

    const answer = await createLinkCollection(
      {
        body: linkBody({
          link: ' https://example.com/docs ',
          chunkSize: 500,
          chunkSplitter: '---',
          trainingType: 'qa',
          metadata: { webPageSelector: '#main' },
        }),
        caller,
      },
      { collections, allowedHosts: parseAllowList([]) },
    );

    expect(answer).toEqual({ collectionId: 'c'.repeat(24), results: { insertLen: 0 } });
    expect(collections.created).toEqual([
      {
        teamId: 'team1',
        tmbId: 'member1',
        datasetId: DATASET,
        parentId: null,
        name: 'https://example.com/docs',
        type: 'link',
        rawLink: 'https://example.com/docs',
        settings: { trainingType: 'qa', chunkSize: 500, chunkSplitter: '---' },
        metadata: { webPageSelector: '#main' },
      },
    ]);
  });

  it('refuses a link of another scheme or a literal metadata or loopback address before creating anything', async () => {
    const collections = fakeCollections();
    const deps = { collections, allowedHosts: parseAllowList([]) };

    for (const link of [
      'file:///etc/passwd',
      'http://169.254.169.254/latest',
      'http://[::1]:8080/',
      'http://127.0.0.1/',
    ]) {
      const error = await createLinkCollection({ body: linkBody({ link }), caller }, deps).catch((e: unknown) => e);
      expect(error).toMatchObject({ httpStatus: 400, code: 507000 });
    }
    expect(collections.created).toEqual([]);
  });

  it('lets a listed loopback host through (LINK_ALLOWED_HOSTS)', async () => {
    const collections = fakeCollections();

    await createLinkCollection(
      { body: linkBody({ link: 'http://127.0.0.1:8080/a' }), caller },
      { collections, allowedHosts: parseAllowList(['127.0.0.1']) },
    );

    expect(collections.created).toHaveLength(1);
  });
});

const upload = (file: Partial<NonNullable<MultipartUpload['file']>> | undefined, data?: unknown): MultipartUpload => ({
  fileTooLarge: false,
  ...(file ? { file: { name: 'a.txt', contentType: 'text/plain', bytes: new Uint8Array([0x61]), ...file } } : {}),
  ...(data !== undefined ? { data: typeof data === 'string' ? data : JSON.stringify(data) } : {}),
});

describe('createFileCollection', () => {
  it('stores the upload under the team and creates a file collection named after it', async () => {
    const collections = fakeCollections();
    const { files, store } = memoryStore();
    const pdf = makePdf([['hello']]);

    const answer = await createFileCollection(
      {
        upload: upload(
          { name: 'C:\\docs\\报告.pdf', contentType: 'application/pdf', bytes: pdf },
          { datasetId: DATASET, chunkSize: '800', collectionMetadata: { source: 'scan' } },
        ),
        caller,
      },
      { collections, store, newId: () => 'f'.repeat(24) },
    );

    expect(answer.results).toEqual({ insertLen: 0 });
    expect(files.get(`team1/${'f'.repeat(24)}`)).toEqual({
      bytes: pdf,
      name: '报告.pdf',
      contentType: 'application/pdf',
    });
    expect(collections.created[0]).toMatchObject({
      type: 'file',
      name: '报告.pdf',
      fileId: 'f'.repeat(24),
      settings: { trainingType: 'chunk', chunkSize: 800 },
      metadata: { source: 'scan' },
    });
  });

  it('removes the stored file again when the collection cannot be created', async () => {
    const collections = fakeCollections(datasetErrors.unExistDataset('The knowledge base does not exist'));
    const { files, store } = memoryStore();

    const error = await createFileCollection(
      { upload: upload({}, { datasetId: DATASET }), caller },
      { collections, store, newId: () => 'f'.repeat(24) },
    ).catch((e: unknown) => e);

    expect(error).toMatchObject({ httpStatus: 404, code: 501002 });
    expect(files.size).toBe(0);
  });

  it('answers FastGPT-shaped errors for a large, missing, mismatched or unsupported file, and stores nothing', async () => {
    const { files, store } = memoryStore();
    const deps = { collections: fakeCollections(), store, newId: () => 'f'.repeat(24) };
    const data = { datasetId: DATASET };
    const cases: [MultipartUpload, number, number, RegExp][] = [
      [{ fileTooLarge: true, data: JSON.stringify(data) }, 413, 507000, /larger than 10 MB/],
      [upload(undefined, data), 400, 507004, /file is required/],
      [upload({}, undefined), 400, 507004, /data is required/],
      [upload({}, 'not json'), 400, 507000, /data must be JSON/],
      [upload({}, {}), 400, 507004, /datasetId/],
      [upload({ name: 'a.exe' }, data), 400, 507000, /\.exe are not supported/],
      [upload({ name: 'a.pdf', contentType: 'application/pdf' }, data), 400, 507000, /does not match its \.pdf name/],
      [upload({ name: 'a.txt', contentType: 'application/pdf' }, data), 400, 507000, /sent as application\/pdf/],
    ];

    for (const [given, httpStatus, code, message] of cases) {
      const error = await createFileCollection({ upload: given, caller }, deps).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DatasetApiError);
      expect(error).toMatchObject({ httpStatus, code });
      expect((error as Error).message).toMatch(message);
    }
    expect(files.size).toBe(0);
    expect(deps.collections.created).toEqual([]);
  });
});

const collection = (extra: Partial<CollectionRecord>): CollectionRecord => ({
  pk: 'pk',
  sk: 'sk',
  id: 'c'.repeat(24),
  teamId: 'team1',
  tmbId: 'member1',
  datasetId: DATASET,
  parentId: null,
  type: 'file',
  name: 'policy.md',
  status: 'ready',
  generation: 1,
  createTime: '2026-01-01T00:00:00.000Z',
  updateTime: '2026-01-01T00:00:00.000Z',
  ...extra,
});

function readDeps(found: CollectionRecord | undefined, store = memoryStore().store, now = new Date()): ServeSourceDeps {
  return {
    collections: {
      findCollection: async (teamId, id) => (found && found.teamId === teamId && found.id === id ? found : undefined),
    },
    linkKey: async () => KEY,
    now: () => now,
    store,
  };
}

describe('readCollection and the served link', () => {
  it('answers a signed link to the source route that serves the stored file, sandboxed', async () => {
    const { store } = memoryStore();
    await store.put({
      teamId: 'team1',
      fileId: 'file1',
      name: 'policy.md',
      contentType: 'text/markdown',
      bytes: new TextEncoder().encode('# 退货'),
    });
    const deps = readDeps(collection({ fileId: 'file1' }), store);

    const { type, value } = await readCollection(
      { body: { collectionId: 'c'.repeat(24) }, caller, baseUrl: 'https://api.example.com/prod' },
      deps,
    );
    const url = new URL(value);
    const served = await serveSource(url.searchParams.get('token') ?? undefined, deps);

    expect(type).toBe('url');
    expect(`${url.origin}${url.pathname}`).toBe(`https://api.example.com/prod${SOURCE_PATH}`);
    expect(served.statusCode).toBe(200);
    expect(served.body).toBe('# 退货');
    expect(served.headers).toMatchObject({
      'Content-Type': 'text/markdown',
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': 'private, no-store',
    });
    expect(String(served.headers?.['Content-Security-Policy'])).toMatch(/^sandbox/);
  });

  it('serves a binary file in base64, redirects to a presigned link when the store has one, and to a page', async () => {
    const { store } = memoryStore();
    const pdf = makePdf([['x']]);
    await store.put({ teamId: 'team1', fileId: 'file1', name: 'a.pdf', contentType: 'application/pdf', bytes: pdf });
    const token = signSourceToken(KEY, { teamId: 'team1', collectionId: 'c'.repeat(24) }, new Date());

    const local = await serveSource(token, readDeps(collection({ fileId: 'file1' }), store));
    const presigning = {
      ...store,
      presignGet: async () => 'https://bucket.s3.amazonaws.com/team1/file1?X-Amz-Signature=x',
    };
    const s3 = await serveSource(token, readDeps(collection({ fileId: 'file1' }), presigning));
    const page = await serveSource(token, readDeps(collection({ type: 'link', rawLink: 'https://example.com/a' })));

    expect(local).toMatchObject({ statusCode: 200, isBase64Encoded: true });
    expect(Buffer.from(local.body, 'base64').equals(Buffer.from(pdf))).toBe(true);
    expect(s3).toMatchObject({
      statusCode: 302,
      headers: { Location: 'https://bucket.s3.amazonaws.com/team1/file1?X-Amz-Signature=x' },
    });
    expect(page).toMatchObject({ statusCode: 302, headers: { Location: 'https://example.com/a' } });
  });

  it("answers an empty value for a collection without a source and 501003 for another team's collection", async () => {
    const deps = readDeps(collection({ type: 'virtual' }));

    expect(await readCollection({ body: { collectionId: 'c'.repeat(24) }, caller, baseUrl: 'x' }, deps)).toEqual({
      type: 'url',
      value: '',
    });
    const other = { ...caller, teamId: 'team2' };
    const error = await readCollection(
      { body: { collectionId: 'c'.repeat(24) }, caller: other, baseUrl: 'x' },
      deps,
    ).catch((e: unknown) => e);
    expect(error).toMatchObject({ httpStatus: 404, code: 501003 });
  });

  it('refuses a missing, tampered, foreign-key or expired token with 501006', async () => {
    const deps = readDeps(collection({ fileId: 'file1' }));
    const claim = { teamId: 'team1', collectionId: 'c'.repeat(24) };
    const token = signSourceToken(KEY, claim, new Date());
    const [payload, signature] = token.split('.');
    const otherTeam = Buffer.from(JSON.stringify({ t: 'team2', c: claim.collectionId, e: 9_999_999_999 })).toString(
      'base64url',
    );
    const cases = [
      undefined,
      'garbage',
      `${otherTeam}.${signature}`,
      `${payload}.${signature}x`,
      signSourceToken(sourceLinkKey(Buffer.alloc(32, 8)), claim, new Date()),
      signSourceToken(KEY, claim, new Date(Date.now() - 31 * 60 * 1000)),
    ];

    for (const given of cases) {
      const error = await serveSource(given, deps).catch((e: unknown) => e);
      expect(error).toMatchObject({ httpStatus: 403, code: 501006 });
    }
    expect(verifySourceToken(KEY, token, new Date(Date.now() + 29 * 60 * 1000)).ok).toBe(true);
    expect(verifySourceToken(KEY, token, new Date(Date.now() + 31 * 60 * 1000))).toEqual({
      ok: false,
      reason: 'expired',
    });
  });
});
