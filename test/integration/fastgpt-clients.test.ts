/**
 * What FastGPT's clients rely on and FastGPT's code does (docs/knowledge-base-api.md, "FastGPT
 * clients"): model names the catalogue does not know, the team-wide list, `type` arrays, the GET list,
 * the update rules and the folder call; through the local server on the suite's engine.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import type { LocalAccessToken } from '#shared/local-credentials';
import { useTestServer } from '#test/support/local-server';
import { type ApiReply, addAccessToken, expectError, teamRecords } from './create-dataset.helpers.ts';
import { KB_PATHS, kbClient, kbRequest } from './knowledge-base.helpers.ts';

let team: LocalAccessToken;
let api: ReturnType<typeof kbClient>;
let other: ReturnType<typeof kbClient>;

const server = useTestServer();

beforeEach(async () => {
  team = await addAccessToken(server);
  api = kbClient(server, `Bearer ${team.token}`);
  other = kbClient(server, `Bearer ${(await addAccessToken(server)).token}`);
});

async function stored(id: string) {
  const { Item } = await server.documents.send(
    new GetCommand({ TableName: server.tables.datasets, Key: { teamId: team.teamId, id } }),
  );
  return Item;
}

function data<T = Record<string, unknown>>(reply: ApiReply): T {
  expect(reply.status).toBe(200);
  expect(reply.body.code).toBe(200);
  return reply.body.data as T;
}

const names = (reply: ApiReply) => data<{ name: string }[]>(reply).map((i) => i.name);
const sorted = (reply: ApiReply) => names(reply).sort();

/** Folder A > B, a dataset in each, a dataset at the root; and one record of another team. */
async function tree() {
  const a = await api.make({ name: 'A', type: 'folder' });
  const b = await api.make({ name: 'B', type: 'folder', parentId: a });
  await api.make({ name: 'in A', parentId: a });
  await api.make({ name: 'in B', parentId: b });
  await api.make({ name: 'at root' });
  await other.make({ name: 'Theirs' });
  return { a, b };
}

describe('model names', () => {
  it.each([
    ['vectorModel', 'my-embedding', 'vector', 'text-embedding-3-small'],
    ['agentModel', 'gpt-3.5-turbo-0301', 'agent', 'gpt-4o-mini'],
    ['vlmModel', 'some-vision-model', 'vlm', 'gpt-4o-mini'],
  ])('stores an unknown %s as sent and shows the default model for it', async (field, name, _kind, shown) => {
    const id = await api.make({ name: 'Docs', [field]: name });

    const detail = data(await api.detail({ id }));

    expect(await stored(id)).toMatchObject({ [field]: name });
    expect(detail[field]).toMatchObject({ model: shown });
  });

  it('shows the default vector model for an unknown one in the list too', async () => {
    await api.make({ name: 'Docs', vectorModel: 'my-embedding' });

    const [item] = data<Record<string, unknown>[]>(await api.list({ parentId: null }));

    expect(item?.vectorModel).toMatchObject({ model: 'text-embedding-3-small', provider: 'OpenAI' });
  });

  it("knows the models of FastGPT's documented create examples", async () => {
    const id = await api.make({
      name: 'Docs',
      vectorModel: 'text-embedding-ada-002',
      agentModel: 'gpt-3.5-turbo-16k',
      vlmModel: 'gpt-4.1',
    });

    const detail = data(await api.detail({ id }));

    expect(detail).toMatchObject({
      vectorModel: { model: 'text-embedding-ada-002', maxToken: 8000 },
      agentModel: { model: 'gpt-3.5-turbo-16k', maxContext: 16000 },
      vlmModel: { model: 'gpt-4.1', maxContext: 1000000, vision: true },
    });
  });

  it.each([
    ['vectorModelId', 'vectorModel', 'bge-m3'],
    ['agentModelId', 'agentModel', 'deepseek-chat'],
    ['vlmModelId', 'vlmModel', 'gpt-4o'],
  ])('reads %s in a create as %s', async (alias, field, name) => {
    const id = await api.make({ name: 'Docs', [alias]: name });

    expect(await stored(id)).toMatchObject({ [field]: name });
    expect(data(await api.detail({ id }))[field]).toMatchObject({ model: name });
  });

  it('reads agentModelId and vlmModelId in an update, the field without Id winning', async () => {
    const id = await api.make({ name: 'Docs' });

    data(await api.update({ id, agentModelId: 'qwen-plus', vlmModel: 'gpt-4.1', vlmModelId: 'gpt-4o' }));

    expect(await stored(id)).toMatchObject({ agentModel: 'qwen-plus', vlmModel: 'gpt-4.1' });
  });

  it('answers 400/507000 for a model name that is not a string, or has a control character', async () => {
    expectError(await api.create({ name: 'Docs', agentModel: 4 }), 400, 507000);
    expectError(await api.create({ name: 'Docs', vlmModelId: 'a\nb' }), 400, 507000);
    expect(await teamRecords(server.documents, team.teamId)).toEqual([]);
  });
});

describe('list', () => {
  it('lists every record of the team, flat, when the body has no parentId', async () => {
    await tree();

    expect(sorted(await api.list({}))).toEqual(['A', 'B', 'at root', 'in A', 'in B']);
  });

  it('counts a request with no body at all as {}', async () => {
    await tree();

    const reply = await kbRequest(server, 'POST', KB_PATHS.list, { bearer: `Bearer ${team.token}` });

    expect(sorted(reply)).toEqual(['A', 'B', 'at root', 'in A', 'in B']);
  });

  it('filters the whole team by type, newest updateTime first', async () => {
    const { a, b } = await tree();
    await api.update({ id: a, intro: 'touched last' });

    const folders = data<{ _id: string }[]>(await api.list({ type: 'folder' }));

    expect(folders.map((f) => f._id)).toEqual([a, b]);
  });

  it.each([
    [
      ['dataset', 'folder'],
      ['A', 'at root'],
    ],
    [['folder'], ['A']],
    [['dataset', 'dataset'], ['at root']],
    [[], []],
  ])('takes type %j as the types to keep', async (type, expected) => {
    await tree();

    expect(sorted(await api.list({ parentId: null, type }))).toEqual(expected);
  });

  it.each([
    [{ type: ['dataset', 'websiteDataset'] }],
    [{ type: [1] }],
    [{ type: 'x'.repeat(3) }],
    [{ type: Array.from({ length: 9 }, () => 'dataset') }],
  ])('answers 400/507000 for the type filter %j', async (body) => {
    expectError(await api.list(body), 400, 507000);
  });

  it('ignores parentId and type when a searchKey is given', async () => {
    const { b } = await tree();

    expect(sorted(await api.list({ parentId: b, type: 'folder', searchKey: 'in ' }))).toEqual(['in A', 'in B']);
  });

  it('reads the query of a GET like the body of the POST', async () => {
    const { a } = await tree();

    expect(sorted(await api.listByQuery({}))).toEqual(['A', 'B', 'at root', 'in A', 'in B']);
    expect(sorted(await api.listByQuery({ parentId: '' }))).toEqual(['A', 'at root']);
    expect(sorted(await api.listByQuery({ parentId: a.toUpperCase() }))).toEqual(['B', 'in A']);
    expect(sorted(await api.listByQuery({ parentId: a, type: 'folder' }))).toEqual(['B']);
    expect(sorted(await api.listByQuery({ searchKey: 'IN B' }))).toEqual(['in B']);
  });

  it.each([
    [{ parentId: 'null' }, 400, 507000],
    [{ type: 'record' }, 400, 507000],
    [{ searchKey: 's'.repeat(101) }, 400, 507000],
    [{ parentId: '65a0c0ffee0000000000beef' }, 404, 501002],
  ])('answers the GET query %j with %i/%i', async (query, status, code) => {
    expectError(await api.listByQuery(query), status, code);
  });

  it("never lists another team's records, whichever way it is asked", async () => {
    await tree();

    for (const reply of [await api.list({}), await api.listByQuery({}), await api.list({ searchKey: 'Theirs' })]) {
      expect(names(reply)).not.toContain('Theirs');
    }
  });
});

describe('update', () => {
  it.each([[''], [null], ['   ']])('leaves the name unchanged for name %j and applies the rest', async (name) => {
    const id = await api.make({ name: 'Docs' });

    data(await api.update({ id, name, intro: 'new intro' }));

    expect(await stored(id)).toMatchObject({ name: 'Docs', intro: 'new intro' });
  });

  it('still refuses a name that is not a string', async () => {
    const id = await api.make({ name: 'Docs' });

    expectError(await api.update({ id, name: 7 }), 400, 507000);
  });
});

describe('POST /api/core/dataset/folder/create', () => {
  it('creates a folder at the root and answers its id; avatar and other fields are ignored', async () => {
    const reply = await api.createFolder({
      name: ' Manuals ',
      intro: 'all of them',
      avatar: '/x.png',
      type: 'dataset',
    });

    const id = data<string>(reply);
    expect(id).toMatch(/^[0-9a-f]{24}$/);
    expect(await stored(id)).toMatchObject({
      type: 'folder',
      name: 'Manuals',
      intro: 'all of them',
      avatar: '/imgs/files/folder.svg',
      parentId: null,
      tmbId: team.tmbId,
      inheritPermission: true,
    });
    expect(await stored(id)).not.toHaveProperty('vectorModel');
    expect(names(await api.list({ parentId: null }))).toEqual(['Manuals']);
  });

  it('creates a folder inside a folder, given in upper case', async () => {
    const parent = await api.make({ name: 'Top', type: 'folder' });

    const id = data<string>(await api.createFolder({ name: 'Sub', parentId: parent.toUpperCase() }));

    expect(await stored(id)).toMatchObject({ parentId: parent, intro: '' });
    expect(data(await api.paths({ sourceId: id, type: 'current' }))).toEqual([
      { parentId: parent, parentName: 'Top' },
      { parentId: id, parentName: 'Sub' },
    ]);
  });

  it.each([
    ['no name', {}, 400, 507004],
    ['a blank name', { name: '  ' }, 400, 507004],
    ['a name over 100 characters', { name: 'n'.repeat(101) }, 400, 507000],
    ['a malformed parentId', { name: 'F', parentId: 'nope' }, 400, 507000],
    ['an intro over 2,000 characters', { name: 'F', intro: 'i'.repeat(2001) }, 400, 507000],
    ['an absent parent', { name: 'F', parentId: '65a0c0ffee0000000000beef' }, 404, 501002],
    ['a body that is not an object', [], 400, 507000],
    ['a body that is not JSON', '{"name":', 400, 507000],
  ])('answers %s with %i/%i and stores nothing', async (_case, body, status, code) => {
    expectError(await api.createFolder(body), status, code);

    expect(await teamRecords(server.documents, team.teamId)).toEqual([]);
  });

  it('answers 400/507000 for a dataset as the parent', async () => {
    const dataset = await api.make({ name: 'Docs' });

    expectError(await api.createFolder({ name: 'F', parentId: dataset }), 400, 507000);
  });

  it("answers 404/501002 for another team's folder as the parent, as for an absent one", async () => {
    const theirs = await other.make({ name: 'Theirs', type: 'folder' });

    const reply = await api.createFolder({ name: 'F', parentId: theirs });

    expectError(reply, 404, 501002);
    expect(reply.body.message).toBe('parentId does not refer to an existing folder');
  });
});
