import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import type { LocalAccessToken } from '#shared/local-credentials';
import { startTestServer, useTestServer } from '#test/support/local-server';
import {
  addAccessToken,
  CREATED_FOLDER_FIELDS,
  createRequest,
  expectCreated,
  expectError,
  GIVEN_DATASET_FIELDS,
  NEW_DATASET_DEFAULTS,
  teamRecords,
} from './create-dataset.helpers.ts';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

// Every test gets a team of its own, so no test sees another's records.
let team: LocalAccessToken;
let bearer: string;

// The handlers read it at load; the secret-leak test (create-dataset-failures) runs with logging on.
const server = useTestServer();

beforeEach(async () => {
  team = await addAccessToken(server);
  bearer = `Bearer ${team.token}`;
});

async function stored(teamId: string, id: string) {
  const { Item } = await server.documents.send(
    new GetCommand({ TableName: server.tables.datasets, Key: { teamId, id } }),
  );
  return Item;
}

async function createFolder(): Promise<string> {
  return expectCreated(await createRequest(server, { name: 'Folder', type: 'folder' }, bearer));
}

describe('POST /api/core/dataset/create: authorization', () => {
  it('answers 401/403 when the Authorization header is missing', async () => {
    const reply = await createRequest(server, { name: 'Docs' });

    expectError(reply, 401, 403);
    expect(reply.body.statusText).toBe('unAuthorization');
  });

  it('answers 401/403 when the Authorization header is not a Bearer token', async () => {
    const reply = await createRequest(server, { name: 'Docs' }, `Basic ${team.token}`);

    expectError(reply, 401, 403);
  });

  it('answers 401/514 for an unknown token', async () => {
    const reply = await createRequest(server, { name: 'Docs' }, 'Bearer kb-this-token-was-never-issued-to-anyone');

    expectError(reply, 401, 514);
    expect(reply.body.statusText).toBe('unAuthApiKey');
  });

  it('answers 401/514 for an expired token', async () => {
    const expired = await addAccessToken(server, { expiresAt: '2020-01-01T00:00:00Z' });

    const reply = await createRequest(server, { name: 'Docs' }, `Bearer ${expired.token}`);

    expectError(reply, 401, 514);
    expect(await teamRecords(server.documents, expired.teamId)).toEqual([]);
  });

  it('answers 401/514 for the admin key, which opens the other API only', async () => {
    const reply = await createRequest(server, { name: 'Docs' }, `Bearer ${server.credentials.adminKey}`);

    expectError(reply, 401, 514);
  });
});

describe('POST /api/core/dataset/create: invalid bodies', () => {
  it.each([
    ['a body that is not JSON', '{"name": "Docs"'],
    ['an array body', '[{"name":"Docs"}]'],
    ['a body over 64 KiB', { name: 'Docs', intro: 'x'.repeat(64 * 1024) }],
    ['a name that is not a string', { name: 42 }],
    ['an intro that is not a string', { name: 'Docs', intro: { text: 'x' } }],
    ['an unknown type', { name: 'Docs', type: 'collection' }],
    ['a malformed parentId', { name: 'Docs', parentId: 'not-an-object-id' }],
    ['a name over 100 characters', { name: 'n'.repeat(101) }],
    ['a name with a control character', { name: 'Do\u0000cs' }],
    ['an intro over 2000 characters', { name: 'Docs', intro: 'i'.repeat(2001) }],
    ['an avatar over 1024 characters', { name: 'Docs', avatar: 'a'.repeat(1025) }],
  ])('answers 400/507000 for %s and stores nothing', async (_case, body) => {
    const reply = await createRequest(server, body, bearer);

    expectError(reply, 400, 507000);
    expect(reply.body.statusText).toBe('invalidParams');
    expect(await teamRecords(server.documents, team.teamId)).toEqual([]);
  });

  it('names the offending field in the message', async () => {
    const reply = await createRequest(server, { name: 'Docs', intro: 'i'.repeat(2001) }, bearer);

    expect(reply.body.message).toBe('intro must be at most 2000 characters');
  });

  it('answers 400/507000 when the parent is a dataset, not a folder', async () => {
    const parentId = expectCreated(await createRequest(server, { name: 'Plain dataset' }, bearer));

    const reply = await createRequest(server, { name: 'Child', parentId }, bearer);

    expectError(reply, 400, 507000);
    expect(reply.body.message).toBe('parentId must refer to a folder');
    expect(await teamRecords(server.documents, team.teamId)).toHaveLength(1);
  });

  it.each([
    ['missing', {}],
    ['null', { name: null }],
    ['blank', { name: '   ' }],
  ])('answers 400/507004 when the name is %s', async (_case, body) => {
    const reply = await createRequest(server, body, bearer);

    expectError(reply, 400, 507004);
    expect(reply.body.statusText).toBe('missingParams');
  });

  it('answers 400/507000 for a model name over 200 characters, and stores nothing', async () => {
    const reply = await createRequest(server, { name: 'Docs', vectorModel: 'm'.repeat(201) }, bearer);

    expectError(reply, 400, 507000);
    expect(reply.body.message).toBe('vectorModel must be at most 200 characters');
    expect(await teamRecords(server.documents, team.teamId)).toEqual([]);
  });
});

describe('POST /api/core/dataset/create: parents', () => {
  it('answers 404/501002 for a parent that does not exist', async () => {
    const reply = await createRequest(server, { name: 'Child', parentId: 'abcdefabcdefabcdefabcdef' }, bearer);

    expectError(reply, 404, 501002);
    expect(reply.body.statusText).toBe('unExistDataset');
  });

  it("answers another team's folder exactly like a missing parent", async () => {
    const other = await addAccessToken(server);
    const foreignFolder = expectCreated(
      await createRequest(server, { name: 'Theirs', type: 'folder' }, `Bearer ${other.token}`),
    );
    const missing = await createRequest(server, { name: 'Child', parentId: 'abcdefabcdefabcdefabcdef' }, bearer);

    const reply = await createRequest(server, { name: 'Child', parentId: foreignFolder }, bearer);

    expectError(reply, 404, 501002);
    expect(reply.body).toStrictEqual(missing.body);
    expect(await teamRecords(server.documents, team.teamId)).toEqual([]);
    expect(await teamRecords(server.documents, other.teamId)).toHaveLength(1);
  });

  it('creates a dataset inside a folder of the same team', async () => {
    const folderId = await createFolder();

    const id = expectCreated(await createRequest(server, { name: 'Child', parentId: folderId }, bearer));

    expect(await stored(team.teamId, id)).toMatchObject({ parentId: folderId });
  });
});

describe('POST /api/core/dataset/create: stored record', () => {
  it('stores a dataset as docs/knowledge-base-api.md describes, with the trimmed name, defaults and its by-parent index key', async () => {
    const body = { name: '  Product docs  ', teamId: 'spoofed', tmbId: 'spoofed', permission: 'owner', extra: 1 };

    const id = expectCreated(await createRequest(server, body, bearer));

    const record = await stored(team.teamId, id);
    expect(record).toStrictEqual({
      id,
      teamId: team.teamId,
      tmbId: team.tmbId,
      ...NEW_DATASET_DEFAULTS,
      name: 'Product docs',
      createTime: expect.stringMatching(ISO),
      updateTime: expect.stringMatching(ISO),
      // The by-parent index key (docs/knowledge-base-api.md): the team's root.
      parentKey: `${team.teamId}#root`,
      // Empty until its first collection: a delete then skips looking for its content.
      noContent: true,
    });
    expect(record?.updateTime).toBe(record?.createTime);
  });

  it('stores the given intro, avatar and models', async () => {
    const id = expectCreated(await createRequest(server, GIVEN_DATASET_FIELDS, bearer));

    expect(await stored(team.teamId, id)).toMatchObject(GIVEN_DATASET_FIELDS);
  });

  it('stores a folder with the folder avatar and no model fields', async () => {
    const body = { name: 'Folder', type: 'folder', vectorModel: 'not-checked-for-folders', parentId: '' };

    const id = expectCreated(await createRequest(server, body, bearer));

    const record = await stored(team.teamId, id);
    expect(record).toMatchObject({ type: 'folder', avatar: '/imgs/files/folder.svg', parentId: null });
    expect(record).not.toHaveProperty('noContent');
    // The repository adds the by-parent index key.
    expect(Object.keys(record ?? {}).sort()).toEqual([...CREATED_FOLDER_FIELDS, 'parentKey'].sort());
  });

  it('creates two datasets with the same name', async () => {
    const first = expectCreated(await createRequest(server, { name: 'Twin' }, bearer));
    const second = expectCreated(await createRequest(server, { name: 'Twin' }, bearer));

    expect(first).not.toBe(second);
    expect(await teamRecords(server.documents, team.teamId)).toHaveLength(2);
  });
});

describe('POST /api/core/dataset/create: load', () => {
  it('creates 200 datasets with 20 in flight, each with its own id, all stored', async () => {
    const total = 200;
    const ids: string[] = [];
    const statuses: number[] = [];
    let next = 0;
    const worker = async () => {
      while (next < total) {
        const n = next++;
        const reply = await createRequest(server, { name: `Load ${n}` }, bearer);
        statuses.push(reply.status);
        if (reply.status === 200) ids.push(reply.body.data as string);
      }
    };

    await Promise.all(Array.from({ length: 20 }, worker));

    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    expect(new Set(ids).size).toBe(total);
    const records = await teamRecords(server.documents, team.teamId);
    expect(records.map((r) => r.id).sort()).toEqual([...ids].sort());
  });

  it('answers 429/429 in the FastGPT envelope when the stage throttles', async () => {
    const throttled = await startTestServer({ throttle: { rateLimit: 1, burstLimit: 1 } });
    try {
      const replies = await Promise.all(
        Array.from({ length: 5 }, (_, n) => createRequest(throttled, { name: `Burst ${n}` }, bearer)),
      );

      const tooMany = replies.filter((r) => r.status === 429);
      expect(tooMany.length).toBeGreaterThan(0);
      for (const reply of tooMany) expectError(reply, 429, 429);
      expect(tooMany[0]?.body.statusText).toBe('tooManyRequests');
    } finally {
      await throttled.close();
    }
  });
});
