import { afterAll, beforeAll, expect } from 'vitest';
import type { LocalAccessToken } from '#shared/local-credentials';
import { type FakeUpstream, startFakeOpenAi } from '#test/support/fake-upstreams';
import { type TestServer, useTestServer } from '#test/support/local-server';
import { type ApiReply, addAccessToken, expectCreated } from './create-dataset.helpers.ts';
import { callProxy, expectData } from './import-http.helpers.ts';
import { ROWS_PATH } from './import-rows.helpers.ts';
import { KB_PATHS, kbRequest } from './knowledge-base.helpers.ts';

/** The content calls' paths (FastGPT's). */
export const CONTENT_PATHS = {
  presign: '/api/core/dataset/file/presignDatasetFilePostUrl',
  presignV1: '/api/core/dataset/presignDatasetFilePostUrl',
  preview: '/api/core/dataset/file/getPreviewChunks',
  createFileId: '/api/core/dataset/collection/create/fileId',
  createCollection: '/api/core/dataset/collection/create',
  createText: '/api/core/dataset/collection/create/text',
  createLink: '/api/core/dataset/collection/create/link',
  createLocalFile: '/api/core/dataset/collection/create/localFile',
  createBackup: '/api/core/dataset/collection/create/backup',
  createTemplate: '/api/core/dataset/collection/create/template',
  export: '/api/core/dataset/collection/export',
  retrain: '/api/core/dataset/collection/create/reTrainingCollection',
  sync: '/api/core/dataset/collection/sync',
  listV2: '/api/core/dataset/collection/listV2',
  listOld: '/api/core/dataset/collection/list',
  detail: '/api/core/dataset/collection/detail',
  paths: '/api/core/dataset/collection/paths',
  update: '/api/core/dataset/collection/update',
  delete: '/api/core/dataset/collection/delete',
  trainingDetail: '/api/core/dataset/collection/trainingDetail',
  pushData: '/api/core/dataset/data/pushData',
  insertData: '/api/core/dataset/data/insertData',
  dataV2: '/api/core/dataset/data/v2/list',
  dataOld: '/api/core/dataset/data/list',
  dataDetail: '/api/core/dataset/data/detail',
  dataUpdate: '/api/core/dataset/data/update',
  dataDelete: '/api/core/dataset/data/delete',
  trainingQueue: '/api/core/dataset/training/getDatasetTrainingQueue',
  trainingError: '/api/core/dataset/training/getTrainingError',
  trainingDataDetail: '/api/core/dataset/training/getTrainingDataDetail',
  updateTrainingData: '/api/core/dataset/training/updateTrainingData',
  deleteTrainingData: '/api/core/dataset/training/deleteTrainingData',
  datasetTrainingError: '/api/core/dataset/training/getDatasetTrainingError',
  retryErrorCollections: '/api/core/dataset/training/retryErrorCollections',
  searchTest: '/api/core/dataset/searchTest',
} as const;

/** One team's client of the content calls. */
export function contentClient(server: Pick<TestServer, 'url'>, token: LocalAccessToken) {
  const bearer = `Bearer ${token.token}`;
  const post = (path: string, body: unknown) => kbRequest(server, 'POST', path, { bearer, body });
  const get = (path: string, query: Record<string, string>) => kbRequest(server, 'GET', path, { bearer, query });
  return {
    token,
    post,
    get,
    put: (path: string, body: unknown) => kbRequest(server, 'PUT', path, { bearer, body }),
    del: (path: string, query: Record<string, string>, body?: unknown) =>
      kbRequest(server, 'DELETE', path, { bearer, query, ...(body === undefined ? {} : { body }) }),
    /** A new knowledge base of this team; its id. */
    async dataset(vectorModel = 'text-embedding-3-small'): Promise<string> {
      return expectCreated(await post(KB_PATHS.create, { name: 'KB', vectorModel }));
    },
    /** The data of a success (asserting it). */
    async ok<T = Record<string, unknown>>(reply: Promise<ApiReply>): Promise<T> {
      const r = await reply;
      expect(r.body).toMatchObject({ code: 200, statusText: '', message: '' });
      expect(r.status).toBe(200);
      return r.body.data as T;
    },
    /** Polls the collection's detail until its training is over (ready or error). */
    async trained(collectionId: string, timeoutMs = 20_000): Promise<Record<string, unknown>> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const detail = (await get(CONTENT_PATHS.detail, { id: collectionId })).body.data as Record<string, unknown>;
        if (detail.status === 'ready' || detail.status === 'error') return detail;
        if (Date.now() > deadline) throw new Error(`collection still ${String(detail.status)}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
}

export async function newContentClient(server: TestServer) {
  return contentClient(server, await addAccessToken(server));
}

/** The key importEmbeddingChannel gives its channel (the upstream sees it as the bearer). */
export const EMBEDDING_CHANNEL_KEY = 'sk-kb-e2e-embeddings-0123456789abcdef';

/** Imports an OpenAI-compatible upstream (a fake's URL) as the relay's embeddings channel in the default group. */
export async function importEmbeddingChannel(server: TestServer, upstreamUrl: string): Promise<void> {
  const columns = ['id', 'type', 'key', 'status', 'name', 'base_url', 'models', 'group'];
  const rows = [[1, 1, EMBEDDING_CHANNEL_KEY, 1, 'embeddings', upstreamUrl, 'text-embedding-3-small', 'default']];
  expectData(await callProxy(server, { method: 'POST', path: ROWS_PATH, json: { columns, rows } }));
}

/**
 * A local server whose relay has a fake OpenAI embeddings upstream as its channel, and a content client of a new team;
 * made before the file's tests (beforeAll), the upstream closed after them.
 */
export function useEmbeddingWorld(): {
  readonly server: TestServer;
  readonly upstream: FakeUpstream;
  readonly api: ReturnType<typeof contentClient>;
} {
  const server = useTestServer({ RELAY_ALLOWED_HOSTS: '127.0.0.1' });
  let upstream: FakeUpstream | undefined;
  let api: ReturnType<typeof contentClient> | undefined;
  beforeAll(async () => {
    upstream = await startFakeOpenAi();
    await importEmbeddingChannel(server, upstream.url);
    api = await newContentClient(server);
  });
  afterAll(async () => upstream?.close());
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('useEmbeddingWorld: used before its beforeAll ran');
    return value;
  };
  return {
    server,
    get upstream() {
      return ready(upstream);
    },
    get api() {
      return ready(api);
    },
  };
}
