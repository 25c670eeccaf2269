import { BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { newObjectId } from '#shared/ids';
import { type DatasetRecord, parentKeyOf } from '#shared/repositories/datasets';
import type { TestServer } from '#test/support/local-server';
import { type ApiReply, createRequest, expectCreated } from './create-dataset.helpers.ts';

/** What every record shows a token's member: owner in both of FastGPT's spellings. */
export const OWNER_PERMISSION_VIEW = {
  value: 4294967295,
  role: 4294967295,
  isOwner: true,
  hasManagePer: true,
  hasWritePer: true,
  hasReadPer: true,
  hasManageRole: true,
  hasWriteRole: true,
  hasReadRole: true,
};

export const KB_PATHS = {
  create: '/api/core/dataset/create',
  folderCreate: '/api/core/dataset/folder/create',
  list: '/api/core/dataset/list',
  detail: '/api/core/dataset/detail',
  update: '/api/core/dataset/update',
  delete: '/api/core/dataset/delete',
  paths: '/api/core/dataset/paths',
} as const;

/** Sends one request to the knowledge-base API: `query` goes into the URL, `body` as JSON (a string as is). */
export async function kbRequest(
  server: Pick<TestServer, 'url'>,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: string,
  options: { bearer?: string; query?: Record<string, string>; body?: unknown },
): Promise<ApiReply> {
  const url = new URL(`${server.url}${path}`);
  for (const [k, v] of Object.entries(options.query ?? {})) url.searchParams.set(k, v);
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (options.bearer !== undefined) headers.Authorization = options.bearer;
  const response = await fetch(url, {
    method,
    headers,
    ...(options.body === undefined
      ? {}
      : { body: typeof options.body === 'string' ? options.body : JSON.stringify(options.body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** A client of one team: the five calls plus create, each answering the raw reply. */
export function kbClient(server: Pick<TestServer, 'url'>, bearer: string) {
  return {
    create: (body: Record<string, unknown>) => createRequest(server, body, bearer),
    /** Creates and returns the new id (asserting success). */
    make: async (body: Record<string, unknown>) => expectCreated(await createRequest(server, body, bearer)),
    list: (body: unknown) => kbRequest(server, 'POST', KB_PATHS.list, { bearer, body }),
    /** The list call with its fields in the query (GET). */
    listByQuery: (query: Record<string, string>) => kbRequest(server, 'GET', KB_PATHS.list, { bearer, query }),
    createFolder: (body: unknown) => kbRequest(server, 'POST', KB_PATHS.folderCreate, { bearer, body }),
    detail: (query: Record<string, string>) => kbRequest(server, 'GET', KB_PATHS.detail, { bearer, query }),
    update: (body: unknown) => kbRequest(server, 'PUT', KB_PATHS.update, { bearer, body }),
    delete: (query: Record<string, string>) => kbRequest(server, 'DELETE', KB_PATHS.delete, { bearer, query }),
    paths: (query: Record<string, string>) => kbRequest(server, 'GET', KB_PATHS.paths, { bearer, query }),
  };
}

/** A record as create would store it (for seeding many quickly); `at` orders updateTime. */
export function seedRecord(
  teamId: string,
  parentId: string | null,
  type: 'dataset' | 'folder',
  name: string,
  at = new Date(),
): DatasetRecord {
  const time = at.toISOString();
  return {
    id: newObjectId(at),
    teamId,
    tmbId: 'seed-member',
    parentId,
    type,
    name,
    intro: '',
    avatar: type === 'folder' ? '/imgs/files/folder.svg' : '/icon/logo.svg',
    ...(type === 'dataset'
      ? { vectorModel: 'text-embedding-3-small', agentModel: 'gpt-4o-mini', vlmModel: 'gpt-4o-mini' }
      : {}),
    inheritPermission: true,
    createTime: time,
    updateTime: time,
    // As create-dataset writes a knowledge base: empty until its first collection (DatasetRecord.noContent).
    ...(type === 'dataset' ? { noContent: true as const } : {}),
  };
}

/** Writes records straight into the table, with their index key, 25 per BatchWriteItem, a few calls at once. */
export async function seedRecords(
  client: DynamoDBDocumentClient,
  records: readonly DatasetRecord[],
  table = process.env.DATASETS_TABLE ?? 'datasets',
): Promise<void> {
  const batches: DatasetRecord[][] = [];
  for (let i = 0; i < records.length; i += 25) batches.push(records.slice(i, i + 25));
  let next = 0;
  const worker = async () => {
    while (next < batches.length) {
      let requests = (batches[next++] ?? []).map((r) => ({
        PutRequest: { Item: { ...r, parentKey: parentKeyOf(r.teamId, r.parentId) } },
      }));
      while (requests.length > 0) {
        const out = await client.send(new BatchWriteCommand({ RequestItems: { [table]: requests } }));
        requests = (out.UnprocessedItems?.[table] ?? []) as typeof requests;
      }
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
}
