import { randomBytes, randomUUID } from 'node:crypto';
import { type DynamoDBDocumentClient, paginateQuery } from '@aws-sdk/lib-dynamodb';
import { expect } from 'vitest';
import {
  type LocalAccessToken,
  newAccessTokenValue,
  readLocalCredentials,
  writeLocalCredentials,
} from '#shared/local-credentials';
import { type DatasetRecord, TREE_LOCK_ID } from '#shared/repositories/datasets';
import type { TestServer } from '#test/support/local-server';

export const CREATE_PATH = '/api/core/dataset/create';

export interface ApiReply {
  status: number;
  body: Record<string, unknown>;
}

/** POSTs to the create route; a string body is sent as is, anything else as JSON. */
export async function createRequest(
  server: Pick<TestServer, 'url'>,
  body: unknown,
  authorization?: string,
): Promise<ApiReply> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (authorization !== undefined) headers.Authorization = authorization;
  const response = await fetch(`${server.url}${CREATE_PATH}`, {
    method: 'POST',
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** Adds an access token for a brand-new team to the local credentials file (reread on every request). */
export async function addAccessToken(
  server: TestServer,
  extra: { expiresAt?: string } = {},
): Promise<LocalAccessToken> {
  const token: LocalAccessToken = {
    id: randomUUID(),
    token: newAccessTokenValue(),
    teamId: randomBytes(12).toString('hex'),
    tmbId: randomBytes(12).toString('hex'),
    ...extra,
  };
  const credentials = await readLocalCredentials(server.credentialsFile);
  await writeLocalCredentials(server.credentialsFile, {
    ...credentials,
    accessTokens: [...credentials.accessTokens, token],
  });
  return token;
}

/** Asserts an error reply: HTTP status, body code and exactly the four envelope keys with `data: null`. */
export function expectError(reply: ApiReply, status: number, code: number): void {
  expect({ status: reply.status, code: reply.body.code }).toEqual({ status, code });
  expect(Object.keys(reply.body).sort()).toEqual(['code', 'data', 'message', 'statusText']);
  expect(reply.body.data).toBeNull();
  expect(reply.body.message).toEqual(expect.any(String));
}

/** Asserts a success reply and returns the new id. */
export function expectCreated(reply: ApiReply): string {
  expect(reply.status).toBe(200);
  expect(reply.body).toStrictEqual({
    code: 200,
    statusText: '',
    message: '',
    data: expect.stringMatching(/^[0-9a-f]{24}$/),
  });
  return reply.body.data as string;
}

/** Every record stored in a team's partition of `table` (default: the table the functions use); the lock item aside. */
export async function teamRecords(
  client: DynamoDBDocumentClient,
  teamId: string,
  table = process.env.DATASETS_TABLE ?? 'datasets',
): Promise<DatasetRecord[]> {
  const records: DatasetRecord[] = [];
  const pages = paginateQuery(
    { client },
    { TableName: table, KeyConditionExpression: 'teamId = :teamId', ExpressionAttributeValues: { ':teamId': teamId } },
  );
  // The team's tree lock item (taken by moves into folders) lives in the partition too, but is no record.
  for await (const page of pages) records.push(...((page.Items ?? []) as DatasetRecord[]));
  return records.filter((r) => r.id !== TREE_LOCK_ID);
}

/** What a new dataset stores when the body names only `name`: the built-in catalogue's defaults. */
export const NEW_DATASET_DEFAULTS = {
  parentId: null,
  type: 'dataset',
  intro: '',
  avatar: '/icon/logo.svg',
  vectorModel: 'text-embedding-3-small',
  agentModel: 'gpt-4o-mini',
  vlmModel: 'gpt-4o-mini',
  inheritPermission: true,
} as const;

/** A create body that gives every optional field of a dataset (none of them a default), as the record keeps them. */
export const GIVEN_DATASET_FIELDS = {
  name: 'Docs',
  intro: 'What it holds',
  avatar: '/imgs/custom.png',
  vectorModel: 'bge-m3',
  agentModel: 'deepseek-chat',
  vlmModel: 'gpt-4o',
} as const;

/** The attributes the create call itself writes for a folder; a dataset adds its three model fields. */
export const CREATED_FOLDER_FIELDS = [
  'id',
  'teamId',
  'tmbId',
  'parentId',
  'type',
  'name',
  'intro',
  'avatar',
  'inheritPermission',
  'createTime',
  'updateTime',
] as const;
