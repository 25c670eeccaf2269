/**
 * The contract suite: every create, list and detail answer, folders included, validates against
 * FastGPT's own response types (test/support/fastgpt-types.ts, at the releases it names), so a client
 * compiled against FastGPT reads what it expects. The records cover each way a record gets its
 * models: the defaults, catalogue models, unknown names, the `*ModelId` spellings, folders made by
 * both calls at the root and nested.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type * as z from 'zod';
import type { LocalAccessToken } from '#shared/local-credentials';
import { FASTGPT_RESPONSES, fastgptDatasetItem, fastgptDatasetListItem } from '#test/support/fastgpt-types';
import { useTestServer } from '#test/support/local-server';
import { type ApiReply, addAccessToken } from './create-dataset.helpers.ts';
import { kbClient, OWNER_PERMISSION_VIEW } from './knowledge-base.helpers.ts';

const server = useTestServer();

let team: LocalAccessToken;
let api: ReturnType<typeof kbClient>;
const ids: string[] = [];
let folder = '';
let nested = '';

/** The problems of `reply` against FastGPT's type (empty when it conforms). */
function breaches(schema: z.ZodType, reply: ApiReply): string[] {
  if (reply.status !== 200) return [`HTTP ${reply.status}: ${JSON.stringify(reply.body)}`];
  const parsed = schema.safeParse(reply.body);
  return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
}

function createdId(reply: ApiReply): string {
  expect(breaches(FASTGPT_RESPONSES.create, reply)).toEqual([]);
  return reply.body.data as string;
}

beforeAll(async () => {
  team = await addAccessToken(server);
  api = kbClient(server, `Bearer ${team.token}`);
  folder = createdId(await api.create({ name: 'Folder', type: 'folder' }));
  nested = createdId(await api.createFolder({ name: 'Nested', parentId: folder }));
  const bodies: Record<string, unknown>[] = [
    { name: 'Defaults' },
    { name: 'Catalogue', vectorModel: 'bge-m3', agentModel: 'qwen-plus', vlmModel: 'gpt-4o' },
    { name: 'Unknown', vectorModel: 'my-embed', agentModel: 'my-llm', vlmModel: 'my-vl', parentId: folder },
    { name: 'Ids', vectorModelId: 'text-embedding-3-large', agentModelId: 'deepseek-chat', parentId: nested },
    { name: 'Examples', vectorModel: 'text-embedding-ada-002', agentModel: 'gpt-3.5-turbo-16k', vlmModel: 'gpt-4.1' },
    { name: 'Root folder 2', type: 'folder', vectorModel: 'ignored' },
  ];
  for (const body of bodies) ids.push(createdId(await api.create(body)));
  ids.push(createdId(await api.createFolder({ name: 'Folder call at root' })));
  ids.push(folder, nested);
});

describe("FastGPT's response types", () => {
  it.each([
    ['POST list without a body', () => api.list(undefined)],
    ['POST list {}', () => api.list({})],
    ['POST list of the root', () => api.list({ parentId: null })],
    ['POST list of a folder', () => api.list({ parentId: folder })],
    ['POST list of a nested folder', () => api.list({ parentId: nested })],
    ['POST list of folders only', () => api.list({ type: 'folder' })],
    ['POST list with a type array', () => api.list({ parentId: '', type: ['dataset', 'folder'] })],
    ['POST search', () => api.list({ searchKey: 'o' })],
    ['GET list of the team', () => api.listByQuery({})],
    ['GET list of a folder', () => api.listByQuery({ parentId: folder })],
  ])('%s validates as DatasetListItemType[]', async (_case, call) => {
    const reply = await call();

    expect(breaches(FASTGPT_RESPONSES.list, reply)).toEqual([]);
    expect((reply.body.data as unknown[]).length).toBeGreaterThan(0);
  });

  it('the whole team lists every record, folders included, each a DatasetListItemType', async () => {
    const reply = await api.list({});

    const items = reply.body.data as { _id: string; type: string }[];
    expect(items.map((i) => i._id).sort()).toEqual([...ids].sort());
    expect(items.filter((i) => i.type === 'folder')).toHaveLength(4);
  });

  it('every detail, folders included, validates as DatasetItemType', async () => {
    const problems: Record<string, string[]> = {};
    for (const id of ids) {
      const found = breaches(FASTGPT_RESPONSES.detail, await api.detail({ id }));
      if (found.length > 0) problems[id] = found;
    }

    expect(problems).toEqual({});
  });

  it('no model item carries a request URL or credential', async () => {
    const text = JSON.stringify([
      (await api.list({})).body,
      ...(await Promise.all(ids.map(async (id) => (await api.detail({ id })).body))),
    ]);

    expect(text).not.toMatch(/requestUrl|requestAuth/);
  });
});

describe('the contract check itself', () => {
  const item = {
    _id: '65abc9bd9d1448617cba5e6c',
    tmbId: '65422be6aa44b7da77729ec9',
    avatar: '',
    updateTime: '2024-01-02T10:11:03.084Z',
    name: 'n',
    intro: '',
    type: 'folder',
    inheritPermission: true,
    permission: OWNER_PERMISSION_VIEW,
    vectorModel: {
      provider: 'OpenAI',
      model: 'text-embedding-3-small',
      name: 'text-embedding-3-small',
      type: 'embedding',
      defaultToken: 512,
      maxToken: 8000,
      weight: 100,
    },
  };

  it('accepts a list item as FastGPT sends one', () => {
    expect(fastgptDatasetListItem.safeParse(item).success).toBe(true);
  });

  it.each([
    ['a folder without a vector model', { vectorModel: null }],
    ['the reduced model object this API used to send', { vectorModel: { model: 'm', name: 'm' } }],
    ['no permission', { permission: undefined }],
    ['a permission without role (FastGPT >= 4.12 reads it)', { permission: { ...item.permission, role: undefined } }],
    ['a permission without value (FastGPT <= 4.11 reads it)', { permission: { ...item.permission, value: undefined } }],
  ])('refuses a list item with %s', (_case, change) => {
    expect(fastgptDatasetListItem.safeParse({ ...item, ...change }).success).toBe(false);
  });

  it('refuses a detail without status or with a null agent model', () => {
    const detail = {
      ...item,
      parentId: null,
      teamId: '65422be6aa44b7da77729ec8',
      status: 'active',
      agentModel: {
        provider: 'OpenAI',
        model: 'gpt-4o-mini',
        name: 'gpt-4o-mini',
        type: 'llm',
        maxContext: 128000,
        maxResponse: 16000,
        quoteMaxToken: 60000,
        functionCall: false,
        toolChoice: true,
      },
    };

    expect(fastgptDatasetItem.safeParse(detail).success).toBe(true);
    expect(fastgptDatasetItem.safeParse({ ...detail, status: undefined }).success).toBe(false);
    expect(fastgptDatasetItem.safeParse({ ...detail, agentModel: null }).success).toBe(false);
  });
});
