import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import type { LocalAccessToken } from '#shared/local-credentials';
import { useTestServer } from '#test/support/local-server';
import { type ApiReply, addAccessToken, expectError, teamRecords } from './create-dataset.helpers.ts';
import {
  KB_PATHS,
  kbClient,
  kbRequest,
  OWNER_PERMISSION_VIEW,
  seedRecord,
  seedRecords,
} from './knowledge-base.helpers.ts';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UNKNOWN_ID = '65a0c0ffee0000000000beef';

// Every test gets a team of its own (and a second team to try to reach across).
let team: LocalAccessToken;
let api: ReturnType<typeof kbClient>;
let other: ReturnType<typeof kbClient>;
let otherTeam: LocalAccessToken;

const server = useTestServer();

beforeEach(async () => {
  team = await addAccessToken(server);
  otherTeam = await addAccessToken(server);
  api = kbClient(server, `Bearer ${team.token}`);
  other = kbClient(server, `Bearer ${otherTeam.token}`);
});

async function stored(id: string, teamId = team.teamId) {
  const { Item } = await server.documents.send(
    new GetCommand({ TableName: server.tables.datasets, Key: { teamId, id } }),
  );
  return Item;
}

function expectOk(reply: ApiReply): unknown {
  expect(reply.status).toBe(200);
  expect(reply.body).toStrictEqual({ code: 200, statusText: '', message: '', data: expect.anything() });
  return reply.body.data;
}

function expectNull(reply: ApiReply): void {
  expect(reply.status).toBe(200);
  expect(reply.body).toStrictEqual({ code: 200, statusText: '', message: '', data: null });
}

const names = (reply: ApiReply) => (reply.body.data as { name: string }[]).map((i) => i.name);

/** root folder A > B > C, with a dataset in each, and a dataset at the root. */
async function tree() {
  const a = await api.make({ name: 'A', type: 'folder' });
  const b = await api.make({ name: 'B', type: 'folder', parentId: a });
  const c = await api.make({ name: 'C', type: 'folder', parentId: b });
  const inA = await api.make({ name: 'in A', parentId: a });
  const inB = await api.make({ name: 'in B', parentId: b });
  const inC = await api.make({ name: 'in C', parentId: c });
  const atRoot = await api.make({ name: 'at root' });
  return { a, b, c, inA, inB, inC, atRoot };
}

describe('the new routes: authorization', () => {
  it.each([
    ['POST', KB_PATHS.list],
    ['GET', KB_PATHS.detail],
    ['PUT', KB_PATHS.update],
    ['DELETE', KB_PATHS.delete],
    ['GET', KB_PATHS.paths],
  ] as const)('%s %s answers 401/403 without a token and 401/514 for the admin key', async (method, path) => {
    const id = await api.make({ name: 'kept' });
    const options = { query: { id, sourceId: id }, body: method === 'GET' ? undefined : { id, name: 'x' } };

    const missing = await kbRequest(server, method, path, options);
    const admin = await kbRequest(server, method, path, {
      ...options,
      bearer: `Bearer ${server.credentials.adminKey}`,
    });

    expectError(missing, 401, 403);
    expectError(admin, 401, 514);
    expect(JSON.stringify(admin.body)).not.toContain(server.credentials.adminKey);
    expect(await stored(id)).toMatchObject({ name: 'kept' });
  });
});

describe('POST /api/core/dataset/list', () => {
  it('lists the root of the caller team as FastGPT list items, and nothing of another team', async () => {
    const id = await api.make({ name: 'Docs', intro: 'about', vectorModel: 'bge-m3' });
    const folder = await api.make({ name: 'Dir', type: 'folder' });
    await other.make({ name: 'Theirs' });

    const reply = await api.list({ parentId: null });

    const items = expectOk(reply) as Record<string, unknown>[];
    expect(items).toHaveLength(2);
    expect(items.find((i) => i._id === id)).toStrictEqual({
      _id: id,
      parentId: null,
      type: 'dataset',
      name: 'Docs',
      intro: 'about',
      avatar: '/icon/logo.svg',
      vectorModel: {
        provider: 'BAAI',
        model: 'bge-m3',
        name: 'bge-m3',
        type: 'embedding',
        charsPointsPrice: 0,
        defaultToken: 512,
        maxToken: 8000,
        weight: 100,
      },
      tmbId: team.tmbId,
      inheritPermission: true,
      updateTime: expect.stringMatching(ISO),
      permission: OWNER_PERMISSION_VIEW,
      private: false,
      sourceMember: { name: `member-${team.tmbId}`, avatar: '/imgs/avatar/BlueAvatar.svg', status: 'active' },
    });
    expect(items.find((i) => i._id === folder)).toMatchObject({
      type: 'folder',
      vectorModel: { model: 'text-embedding-3-small', type: 'embedding', maxToken: 8000 },
      permission: OWNER_PERMISSION_VIEW,
    });
  });

  it.each([[{ parentId: '' }], [{ parentId: null }]])('treats %j as the root', async (body) => {
    const folder = await api.make({ name: 'Top', type: 'folder' });
    await api.make({ name: 'Inside', parentId: folder });

    expect(names(await api.list(body))).toEqual(['Top']);
  });

  it('lists only the direct children of a folder, found by an upper-case parentId too', async () => {
    const t = await tree();

    const reply = await api.list({ parentId: t.b.toUpperCase() });

    expect(names(reply).sort()).toEqual(['C', 'in B']);
  });

  it('orders the items by updateTime, newest first', async () => {
    const day = (d: number) => new Date(Date.UTC(2024, 0, d));
    await seedRecords(server.documents, [
      seedRecord(team.teamId, null, 'dataset', 'second', day(2)),
      seedRecord(team.teamId, null, 'dataset', 'fourth', day(4)),
      seedRecord(team.teamId, null, 'folder', 'first', day(1)),
      seedRecord(team.teamId, null, 'dataset', 'third', day(3)),
    ]);

    expect(names(await api.list({ parentId: null }))).toEqual(['fourth', 'third', 'second', 'first']);
  });

  it('puts a record it just updated first', async () => {
    const old = new Date(Date.UTC(2024, 0, 1));
    const records = ['x', 'y', 'z'].map((n) => seedRecord(team.teamId, null, 'dataset', n, old));
    await seedRecords(server.documents, records);

    expectNull(await api.update({ id: records[1]?.id, intro: 'touched' }));

    expect(names(await api.list({}))[0]).toBe('y');
  });

  it.each([
    ['folder', ['Dir']],
    ['dataset', ['Docs']],
    ['', ['Dir', 'Docs']],
  ])('filters by type %j', async (type, expected) => {
    await api.make({ name: 'Docs' });
    await api.make({ name: 'Dir', type: 'folder' });

    expect(names(await api.list({ type })).sort()).toEqual(expected);
  });

  it('searches name and intro across the whole team, case-insensitively, ignoring parentId', async () => {
    const t = await tree();
    await api.make({ name: 'Manual', intro: 'The ALPHA release notes', parentId: t.c });
    await api.make({ name: 'alphabet', type: 'folder', parentId: t.a });
    await api.make({ name: 'beta' });
    await other.make({ name: 'alpha of another team' });

    const reply = await api.list({ parentId: t.b, searchKey: '  Alpha ' });

    expect(names(reply).sort()).toEqual(['Manual', 'alphabet']);
  });

  it('ignores the type filter in a search, as FastGPT does', async () => {
    await api.make({ name: 'alpha docs' });
    await api.make({ name: 'alpha dir', type: 'folder' });

    expect(names(await api.list({ searchKey: 'ALPHA', type: 'folder' })).sort()).toEqual(['alpha dir', 'alpha docs']);
  });

  it('answers an empty list for a folder without children', async () => {
    const folder = await api.make({ name: 'Empty', type: 'folder' });

    expect(expectOk(await api.list({ parentId: folder }))).toEqual([]);
  });

  it.each([
    ['a body that is not JSON', '{"parentId":', 507000],
    ['a body that is an array', '[]', 507000],
    ['a malformed parentId', { parentId: 'abc' }, 507000],
    ['a numeric parentId', { parentId: 12 }, 507000],
    ['an unknown type', { type: 'file' }, 507000],
    ['a searchKey over 100 characters', { searchKey: 'x'.repeat(101) }, 507000],
    ['a searchKey that is not a string', { searchKey: 5 }, 507000],
  ])('answers 400 for %s', async (_case, body, code) => {
    expectError(await api.list(body), 400, code);
  });

  it('answers 404/501002 for a parentId of another team, exactly as for one that does not exist', async () => {
    const theirs = await other.make({ name: 'Their dir', type: 'folder' });
    await other.make({ name: 'secret', parentId: theirs });

    const reply = await api.list({ parentId: theirs });
    const absent = await api.list({ parentId: UNKNOWN_ID });

    expectError(reply, 404, 501002);
    expect(reply.body).toEqual(absent.body);
  });

  it('answers 400/507000 for a parentId that is a dataset', async () => {
    const dataset = await api.make({ name: 'Docs' });

    expectError(await api.list({ parentId: dataset }), 400, 507000);
  });
});

describe('GET /api/core/dataset/detail', () => {
  it('answers the stored record with _id, model items, the permission and status', async () => {
    const id = await api.make({ name: 'Docs', intro: 'i', agentModel: 'gpt-4o', vlmModel: 'gpt-4o' });

    const data = expectOk(await api.detail({ id }));

    expect(data).toStrictEqual({
      _id: id,
      parentId: null,
      teamId: team.teamId,
      tmbId: team.tmbId,
      type: 'dataset',
      status: 'active',
      name: 'Docs',
      intro: 'i',
      avatar: '/icon/logo.svg',
      vectorModel: {
        provider: 'OpenAI',
        model: 'text-embedding-3-small',
        name: 'text-embedding-3-small',
        type: 'embedding',
        charsPointsPrice: 0,
        defaultToken: 512,
        maxToken: 8000,
        weight: 100,
      },
      agentModel: {
        provider: 'OpenAI',
        model: 'gpt-4o',
        name: 'gpt-4o',
        type: 'llm',
        charsPointsPrice: 0,
        maxContext: 128000,
        maxResponse: 4000,
        quoteMaxToken: 60000,
        functionCall: false,
        toolChoice: true,
        vision: true,
      },
      vlmModel: expect.objectContaining({ model: 'gpt-4o', type: 'llm', vision: true }),
      inheritPermission: true,
      permission: OWNER_PERMISSION_VIEW,
      createTime: expect.stringMatching(ISO),
      updateTime: expect.stringMatching(ISO),
    });
  });

  it("answers FastGPT's folder defaults as a folder's model items, and its parent id for a child", async () => {
    const folder = await api.make({ name: 'Dir', type: 'folder' });
    const child = await api.make({ name: 'Sub', type: 'folder', parentId: folder });

    const data = expectOk(await api.detail({ id: child })) as Record<string, unknown>;

    expect(data).toMatchObject({
      parentId: folder,
      status: 'active',
      permission: OWNER_PERMISSION_VIEW,
      vectorModel: { model: 'text-embedding-3-small', type: 'embedding' },
      agentModel: { model: 'gpt-4o-mini', type: 'llm' },
      vlmModel: { model: 'gpt-4o-mini', type: 'llm', vision: true },
    });
  });

  it('finds the record by an upper-case spelling of its id', async () => {
    const id = await api.make({ name: 'Docs' });

    expect(expectOk(await api.detail({ id: id.toUpperCase() }))).toMatchObject({ _id: id });
  });

  it.each([
    ['no id', {}, 400, 507004],
    ['an empty id', { id: '' }, 400, 507004],
    ['an id that is not 24 hex characters', { id: 'not-an-object-id' }, 400, 507000],
    ['an id of 25 hex characters', { id: `${UNKNOWN_ID}0` }, 400, 507000],
    ['an unknown id', { id: UNKNOWN_ID }, 404, 501002],
  ])('answers %s with %i/%i', async (_case, query, status, code) => {
    expectError(await api.detail(query), status, code);
  });

  it('answers 404/501002 for a record of another team', async () => {
    const theirs = await other.make({ name: 'Theirs' });

    expectError(await api.detail({ id: theirs }), 404, 501002);
  });
});

describe('PUT /api/core/dataset/update', () => {
  it('changes only the named fields and bumps updateTime', async () => {
    const id = await api.make({ name: 'Docs', intro: 'old intro', avatar: '/a.png' });
    const before = await stored(id);

    expectNull(await api.update({ id, name: '  Renamed  ', intro: 'new intro' }));

    const after = await stored(id);
    expect(after).toEqual({
      ...before,
      name: 'Renamed',
      intro: 'new intro',
      updateTime: expect.stringMatching(ISO),
    });
    expect(after?.updateTime >= (before?.updateTime as string)).toBe(true);
    expect(after?.createTime).toBe(before?.createTime);
  });

  it('leaves fields sent as null unchanged and resets a blank avatar to the type default', async () => {
    const id = await api.make({ name: 'Dir', type: 'folder', intro: 'kept', avatar: '/custom.png' });

    expectNull(await api.update({ id, intro: null, avatar: '', agentModel: null }));

    expect(await stored(id)).toMatchObject({ name: 'Dir', intro: 'kept', avatar: '/imgs/files/folder.svg' });
  });

  it('changes agentModel and vlmModel within the catalogue, and accepts the unchanged vectorModel', async () => {
    const id = await api.make({ name: 'Docs', vectorModel: 'bge-m3' });

    expectNull(await api.update({ id, agentModel: 'qwen-plus', vlmModel: 'gpt-4o', vectorModel: 'bge-m3' }));

    expect(await stored(id)).toMatchObject({ vectorModel: 'bge-m3', agentModel: 'qwen-plus', vlmModel: 'gpt-4o' });
  });

  it('ignores a vectorModel in an update, as FastGPT does, and applies the rest', async () => {
    const id = await api.make({ name: 'Docs', vectorModel: 'bge-m3' });

    expectNull(await api.update({ id, name: 'Renamed', vectorModel: 'text-embedding-3-large' }));

    expect(await stored(id)).toMatchObject({ name: 'Renamed', vectorModel: 'bge-m3' });
  });

  it('answers 400/507000 for another type and changes nothing', async () => {
    const id = await api.make({ name: 'Docs' });
    const before = await stored(id);

    expectError(await api.update({ id, type: 'folder' }), 400, 507000);

    expect(await stored(id)).toEqual(before);
  });

  it('stores an agentModel the catalogue does not know as sent, and shows the default model for it', async () => {
    const id = await api.make({ name: 'Docs' });

    expectNull(await api.update({ id, agentModel: 'gpt-2' }));

    expect(await stored(id)).toMatchObject({ agentModel: 'gpt-2' });
    expect(expectOk(await api.detail({ id }))).toMatchObject({ agentModel: { model: 'gpt-4o-mini' } });
  });

  it('ignores model fields on a folder, as create does', async () => {
    const id = await api.make({ name: 'Dir', type: 'folder' });

    expectNull(await api.update({ id, agentModel: 'gpt-2', vectorModel: 'bge-m3' }));

    const after = await stored(id);
    expect(after).not.toHaveProperty('agentModel');
    expect(after).not.toHaveProperty('vectorModel');
  });

  it('moves a dataset into a folder (given in upper case) and back to the root, and the lists follow', async () => {
    const folder = await api.make({ name: 'Dir', type: 'folder' });
    const id = await api.make({ name: 'Docs' });

    expectNull(await api.update({ id, parentId: folder.toUpperCase() }));
    const inFolder = names(await api.list({ parentId: folder }));
    const atRootWhileMoved = names(await api.list({ parentId: null }));
    expectNull(await api.update({ id, parentId: '' }));

    expect(inFolder).toEqual(['Docs']);
    expect(atRootWhileMoved).toEqual(['Dir']);
    expect(names(await api.list({ parentId: folder }))).toEqual([]);
    expect(names(await api.list({})).sort()).toEqual(['Dir', 'Docs']);
    expect(await stored(id)).toMatchObject({ parentId: null });
  });

  it('moves a folder with its subtree under another folder', async () => {
    const t = await tree();
    const target = await api.make({ name: 'Target', type: 'folder' });

    expectNull(await api.update({ id: t.b, parentId: target }));

    expect(names(await api.list({ parentId: target }))).toEqual(['B']);
    expect(names(await api.list({ parentId: t.b })).sort()).toEqual(['C', 'in B']);
    expect(names(await api.list({ parentId: t.a }))).toEqual(['in A']);
  });

  it.each([
    ['itself', 'a'],
    ['its child', 'b'],
    ['its grandchild', 'c'],
  ] as const)('answers 400/507000 for moving a folder into %s, and changes nothing', async (_case, target) => {
    const t = await tree();
    const before = await teamRecords(server.documents, team.teamId);

    const reply = await api.update({ id: t.a, parentId: t[target] });

    expectError(reply, 400, 507000);
    expect(reply.body.message).toMatch(/parentId/);
    expect(await teamRecords(server.documents, team.teamId)).toEqual(before);
  });

  it('answers 400/507000 for moving into a dataset', async () => {
    const dataset = await api.make({ name: 'Docs' });
    const id = await api.make({ name: 'Other' });

    expectError(await api.update({ id, parentId: dataset }), 400, 507000);
  });

  it('answers 404/501002 for moving into a folder of another team, and changes nothing', async () => {
    const theirs = await other.make({ name: 'Their dir', type: 'folder' });
    const id = await api.make({ name: 'Docs' });
    const before = await stored(id);

    expectError(await api.update({ id, parentId: theirs }), 404, 501002);

    expect(await stored(id)).toEqual(before);
  });

  it('updates the record named by an upper-case id', async () => {
    const id = await api.make({ name: 'Docs' });

    expectNull(await api.update({ id: id.toUpperCase(), name: 'Upper' }));

    expect(await stored(id)).toMatchObject({ name: 'Upper' });
  });

  it.each([
    ['no id', { name: 'x' }, 400, 507004],
    ['a null id', { id: null, name: 'x' }, 400, 507004],
    ['a malformed id', { id: 'xyz', name: 'x' }, 400, 507000],
    ['an unknown id', { id: UNKNOWN_ID, name: 'x' }, 404, 501002],
    ['a body that is not JSON', 'name=x', 400, 507000],
  ])('answers %s with %i/%i', async (_case, body, status, code) => {
    expectError(await api.update(body), status, code);
  });

  it.each([
    ['a name over 100 characters', { name: 'n'.repeat(101) }, 507000],
    ['a name with a control character', { name: 'a\u0007b' }, 507000],
    ['an intro over 2,000 characters', { intro: 'i'.repeat(2001) }, 507000],
    ['an avatar over 1,024 characters', { avatar: 'a'.repeat(1025) }, 507000],
    ['a malformed parentId', { parentId: 'nope' }, 507000],
  ])('answers 400 for %s and changes nothing', async (_case, fields, code) => {
    const id = await api.make({ name: 'Docs' });
    const before = await stored(id);

    expectError(await api.update({ id, ...fields }), 400, code);

    expect(await stored(id)).toEqual(before);
  });

  it('answers 404/501002 for a record of another team and leaves it alone', async () => {
    const theirs = await other.make({ name: 'Theirs' });

    expectError(await api.update({ id: theirs, name: 'Mine now' }), 404, 501002);

    expect(await stored(theirs, otherTeam.teamId)).toMatchObject({ name: 'Theirs' });
  });
});

describe('DELETE /api/core/dataset/delete', () => {
  it('deletes a dataset and nothing else', async () => {
    const id = await api.make({ name: 'Docs' });
    const kept = await api.make({ name: 'Kept' });

    expectNull(await api.delete({ id }));

    expect((await teamRecords(server.documents, team.teamId)).map((r) => r.id)).toEqual([kept]);
  });

  it('deletes a folder with three levels below it: exactly its subtree, nothing else', async () => {
    const t = await tree();
    const d = await api.make({ name: 'D', type: 'folder', parentId: t.c });
    await api.make({ name: 'in D', parentId: d });
    const sibling = await api.make({ name: 'Sibling', type: 'folder' });
    const inSibling = await api.make({ name: 'in Sibling', parentId: sibling });
    const theirs = await other.make({ name: 'A', type: 'folder' });

    expectNull(await api.delete({ id: t.a }));

    const left = (await teamRecords(server.documents, team.teamId)).map((r) => r.id).sort();
    expect(left).toEqual([t.atRoot, sibling, inSibling].sort());
    expect(await stored(theirs, otherTeam.teamId)).toBeDefined();
  });

  it('deletes by an upper-case id, and a second delete answers 404', async () => {
    const id = await api.make({ name: 'Dir', type: 'folder' });

    expectNull(await api.delete({ id: id.toUpperCase() }));

    expectError(await api.delete({ id }), 404, 501002);
  });

  it.each([
    ['no id', {}, 400, 507004],
    ['a malformed id', { id: '12345' }, 400, 507000],
    ['an unknown id', { id: UNKNOWN_ID }, 404, 501002],
  ])('answers %s with %i/%i', async (_case, query, status, code) => {
    expectError(await api.delete(query), status, code);
  });

  it('answers 404/501002 for a folder of another team and deletes nothing of it', async () => {
    const theirs = await other.make({ name: 'Their dir', type: 'folder' });
    const child = await other.make({ name: 'Their child', parentId: theirs });

    expectError(await api.delete({ id: theirs }), 404, 501002);

    expect(await stored(theirs, otherTeam.teamId)).toBeDefined();
    expect(await stored(child, otherTeam.teamId)).toBeDefined();
  });
});

describe('GET /api/core/dataset/paths', () => {
  it('answers the folders above a record from the root down (type=parent, the default)', async () => {
    const t = await tree();

    const byDefault = expectOk(await api.paths({ sourceId: t.inC }));
    const parent = expectOk(await api.paths({ sourceId: t.inC, type: 'parent' }));

    expect(byDefault).toStrictEqual([
      { parentId: t.a, parentName: 'A' },
      { parentId: t.b, parentName: 'B' },
      { parentId: t.c, parentName: 'C' },
    ]);
    expect(parent).toEqual(byDefault);
  });

  it('includes the record itself with type=current, found by an upper-case id', async () => {
    const t = await tree();

    const data = expectOk(await api.paths({ sourceId: t.c.toUpperCase(), type: 'current' }));

    expect(data).toStrictEqual([
      { parentId: t.a, parentName: 'A' },
      { parentId: t.b, parentName: 'B' },
      { parentId: t.c, parentName: 'C' },
    ]);
  });

  it('answers [] for a root record with type=parent, and the record alone with type=current', async () => {
    const id = await api.make({ name: 'Top', type: 'folder' });

    expect(expectOk(await api.paths({ sourceId: id }))).toEqual([]);
    expect(expectOk(await api.paths({ sourceId: id, type: 'current' }))).toEqual([{ parentId: id, parentName: 'Top' }]);
  });

  it.each([[{}], [{ sourceId: '' }], [{ type: 'current' }]])('answers [] without a sourceId: %j', async (query) => {
    expect(expectOk(await api.paths(query))).toEqual([]);
  });

  it.each([
    ['a malformed sourceId', { sourceId: 'zz' }, 400, 507000],
    ['an unknown type', { sourceId: UNKNOWN_ID, type: 'children' }, 400, 507000],
    ['an unknown sourceId', { sourceId: UNKNOWN_ID }, 404, 501002],
  ])('answers %s with %i/%i', async (_case, query, status, code) => {
    expectError(await api.paths(query), status, code);
  });

  it('answers 404/501002 for a record of another team', async () => {
    const theirs = await other.make({ name: 'Theirs', type: 'folder' });

    expectError(await api.paths({ sourceId: theirs, type: 'current' }), 404, 501002);
  });
});

describe('secrets', () => {
  it('never echoes the bearer token, in a success or in an error of any new call', async () => {
    const id = await api.make({ name: 'Docs' });
    const token = team.token;

    const replies = await Promise.all([
      api.list({ parentId: token }),
      api.list({ searchKey: token }),
      api.detail({ id: token }),
      api.detail({ id }),
      api.update({ id, name: token }),
      api.update({ id: token }),
      api.delete({ id: token }),
      api.paths({ sourceId: token }),
    ]);

    for (const reply of replies) expect(JSON.stringify(reply.body)).not.toContain(token);
  });
});
