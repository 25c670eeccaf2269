import { beforeEach, describe, expect, it } from 'vitest';
import { DATASET_REQUEST_ERRORS } from '#shared/envelopes/dataset';
import { DatasetApiError } from '#shared/errors';
import { type CallerContext, validRequest } from '#shared/http';
import { BUILT_IN_MODEL_CATALOG, parseModelCatalog } from '#shared/model-catalog';
import { DatasetIdConflictError, type DatasetRecord, type DatasetRepository } from '#shared/repositories/datasets';
import { type CreateDatasetDeps, createDataset } from '../../functions/create-dataset/create-dataset.ts';
import { createDatasetBodySchema } from '../../functions/create-dataset/schema.ts';
import { GIVEN_DATASET_FIELDS, NEW_DATASET_DEFAULTS } from '../integration/create-dataset.helpers.ts';

/** In-memory repository keyed like the table (teamId + id), rejecting an existing key like the conditional put. */
class InMemoryDatasetRepository implements DatasetRepository {
  readonly records = new Map<string, DatasetRecord>();
  putAttempts = 0;

  async get(teamId: string, id: string): Promise<DatasetRecord | undefined> {
    return this.records.get(`${teamId}/${id}`);
  }

  async put(record: DatasetRecord): Promise<void> {
    this.putAttempts += 1;
    const key = `${record.teamId}/${record.id}`;
    if (this.records.has(key)) throw new DatasetIdConflictError();
    this.records.set(key, record);
  }

  seed(record: Partial<DatasetRecord> & Pick<DatasetRecord, 'id' | 'teamId' | 'type'>): void {
    this.records.set(`${record.teamId}/${record.id}`, { ...folderDefaults, ...record });
  }
}

const folderDefaults: Omit<DatasetRecord, 'id' | 'teamId' | 'type'> = {
  tmbId: 'member',
  parentId: null,
  name: 'seeded',
  intro: '',
  avatar: '/imgs/files/folder.svg',
  inheritPermission: true,
  createTime: '2025-01-01T00:00:00.000Z',
  updateTime: '2025-01-01T00:00:00.000Z',
};

const caller: CallerContext = { scope: 'dataset', teamId: 'team-a', tmbId: 'member-a', tokenId: 'token-a' };
const NOW = new Date('2026-03-04T05:06:07.089Z');
const FOLDER_ID = 'aaaaaaaaaaaaaaaaaaaaaaaa';

let repo: InMemoryDatasetRepository;
let ids: string[];
let deps: CreateDatasetDeps;

beforeEach(() => {
  repo = new InMemoryDatasetRepository();
  ids = ['000000000000000000000001', '000000000000000000000002', '000000000000000000000003'];
  deps = {
    repo,
    catalog: BUILT_IN_MODEL_CATALOG,
    modelPolicy: 'strict',
    now: () => NOW,
    newId: () => ids.shift() ?? 'ffffffffffffffffffffffff',
  };
});

/** A request body as the handler hands it to the core: validated with the function's schema (shared/http.ts). */
const valid = (body: unknown) => validRequest(body, createDatasetBodySchema, DATASET_REQUEST_ERRORS);

/** Validates the body and runs the core, as the handler does; returns the error it throws (fails the test if it succeeds). */
async function rejectionOf(body: unknown): Promise<DatasetApiError> {
  const error = await Promise.resolve()
    .then(() => createDataset({ body: valid(body), caller }, deps))
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  expect(error).toBeInstanceOf(DatasetApiError);
  return error as DatasetApiError;
}

describe('createDataset', () => {
  it('stores a dataset with the attributes of docs/knowledge-base-api.md and the default models', async () => {
    const result = await createDataset({ body: valid({ name: '  Docs  ', extra: 'dropped' }), caller }, deps);

    expect(result).toEqual({ id: '000000000000000000000001' });
    expect([...repo.records.values()]).toEqual([
      {
        id: '000000000000000000000001',
        teamId: 'team-a',
        tmbId: 'member-a',
        ...NEW_DATASET_DEFAULTS,
        name: 'Docs',
        createTime: '2026-03-04T05:06:07.089Z',
        updateTime: '2026-03-04T05:06:07.089Z',
        // Empty until its first collection (DatasetRecord.noContent).
        noContent: true,
      },
    ]);
  });

  it('keeps the given intro, avatar and models', async () => {
    await createDataset({ body: valid(GIVEN_DATASET_FIELDS), caller }, deps);

    expect([...repo.records.values()][0]).toMatchObject(GIVEN_DATASET_FIELDS);
  });

  it('takes teamId and tmbId from the caller, never from the body', async () => {
    await createDataset({ body: valid({ name: 'Docs', teamId: 'team-b', tmbId: 'member-b' }), caller }, deps);

    expect([...repo.records.values()][0]).toMatchObject({ teamId: 'team-a', tmbId: 'member-a' });
  });

  it('stores a folder with the folder avatar and no model fields, ignoring unknown model names', async () => {
    await createDataset({ body: valid({ name: 'Dir', type: 'folder', vectorModel: 'no-such-model' }), caller }, deps);

    const stored = [...repo.records.values()][0];
    expect(stored).toMatchObject({ type: 'folder', avatar: '/imgs/files/folder.svg' });
    expect(stored).not.toHaveProperty('vectorModel');
    expect(stored).not.toHaveProperty('agentModel');
    expect(stored).not.toHaveProperty('vlmModel');
  });

  it('uses the configured catalogue for defaults and allowed names', async () => {
    deps.catalog = parseModelCatalog({
      vector: { models: ['v1', 'v2'], default: 'v2' },
      agent: { models: ['a1'], default: 'a1' },
      vlm: { models: ['m1'], default: 'm1' },
    });

    await createDataset({ body: valid({ name: 'Docs', vectorModel: 'v1' }), caller }, deps);
    const error = await rejectionOf({ name: 'Docs', agentModel: 'gpt-4o-mini' });

    expect([...repo.records.values()][0]).toMatchObject({ vectorModel: 'v1', agentModel: 'a1', vlmModel: 'm1' });
    expect(error.message).toBe('agentModel must be one of the available agent models: a1');
  });

  it.each([
    ['vectorModel', 'vector'],
    ['agentModel', 'agent'],
    ['vlmModel', 'vlm'],
  ])(
    'rejects an unknown %s with invalidVectorModelOrQAModel and stores nothing under the strict policy',
    async (field, kind) => {
      const error = await rejectionOf({ name: 'Docs', [field]: 'no-such-model' });

      expect(error).toMatchObject({ httpStatus: 400, code: 501010, statusText: 'invalidVectorModelOrQAModel' });
      expect(error.message).toMatch(new RegExp(`^${field} must be one of the available ${kind} models`));
      expect(error.message).not.toContain('no-such-model');
      expect(repo.putAttempts).toBe(0);
    },
  );

  it.each([
    ['vectorModel', 'my-embedding'],
    ['agentModel', 'gpt-3.5-turbo-0301'],
    ['vlmModel', 'some-vision-model'],
  ])('stores an unknown %s as sent under the lenient policy', async (field, name) => {
    deps.modelPolicy = 'lenient';

    await createDataset({ body: valid({ name: 'Docs', [field]: name }), caller }, deps);

    expect([...repo.records.values()][0]).toMatchObject({ [field]: name });
  });

  it.each([
    ['vectorModelId', 'vectorModel', 'bge-m3'],
    ['agentModelId', 'agentModel', 'qwen-plus'],
    ['vlmModelId', 'vlmModel', 'gpt-4o'],
  ])('reads %s as %s', async (alias, field, name) => {
    await createDataset({ body: valid({ name: 'Docs', [alias]: name }), caller }, deps);

    expect([...repo.records.values()][0]).toMatchObject({ [field]: name });
  });

  it('prefers vectorModel over vectorModelId, and names the alias when only it is unknown', async () => {
    await createDataset({ body: valid({ name: 'Docs', vectorModel: 'bge-m3', vectorModelId: 'x' }), caller }, deps);
    const error = await rejectionOf({ name: 'Docs', agentModelId: 'no-such-model' });

    expect([...repo.records.values()][0]).toMatchObject({ vectorModel: 'bge-m3' });
    expect(error.message).toMatch(/^agentModelId must be one of the available agent models/);
  });

  it('creates a child of a folder of the same team', async () => {
    repo.seed({ id: FOLDER_ID, teamId: 'team-a', type: 'folder' });

    const { id } = await createDataset({ body: valid({ name: 'Child', parentId: FOLDER_ID }), caller }, deps);

    expect(repo.records.get(`team-a/${id}`)?.parentId).toBe(FOLDER_ID);
  });

  it('rejects a parentId that does not exist with unExistDataset', async () => {
    const error = await rejectionOf({ name: 'Child', parentId: FOLDER_ID });

    expect(error).toMatchObject({ httpStatus: 404, code: 501002, statusText: 'unExistDataset' });
    expect(repo.putAttempts).toBe(0);
  });

  it('rejects a parentId that belongs to another team exactly like a missing one', async () => {
    const missing = await rejectionOf({ name: 'Child', parentId: FOLDER_ID });
    repo.seed({ id: FOLDER_ID, teamId: 'team-b', type: 'folder' });

    const otherTeams = await rejectionOf({ name: 'Child', parentId: FOLDER_ID });

    expect(otherTeams).toMatchObject({ httpStatus: 404, code: 501002, message: missing.message });
    expect(repo.putAttempts).toBe(0);
  });

  it('rejects a parent that is a dataset, not a folder', async () => {
    repo.seed({ id: FOLDER_ID, teamId: 'team-a', type: 'dataset' });

    const error = await rejectionOf({ name: 'Child', parentId: FOLDER_ID });

    expect(error).toMatchObject({ httpStatus: 400, code: 507000, message: 'parentId must refer to a folder' });
    expect(repo.putAttempts).toBe(0);
  });

  it('maps an invalid body to the API error and stores nothing', async () => {
    const error = await rejectionOf({ name: ' ' });

    expect(error).toMatchObject({ httpStatus: 400, code: 507004, statusText: 'missingParams' });
    expect(repo.putAttempts).toBe(0);
  });

  it('allows two datasets with the same name', async () => {
    const first = await createDataset({ body: valid({ name: 'Same' }), caller }, deps);
    const second = await createDataset({ body: valid({ name: 'Same' }), caller }, deps);

    expect(first.id).not.toBe(second.id);
    expect(repo.records.size).toBe(2);
  });

  it('retries an id collision once with a fresh id', async () => {
    repo.seed({ id: '000000000000000000000001', teamId: 'team-a', type: 'folder' });

    const { id } = await createDataset({ body: valid({ name: 'Docs' }), caller }, deps);

    expect(id).toBe('000000000000000000000002');
    expect(repo.records.get('team-a/000000000000000000000001')?.name).toBe('seeded');
  });

  it('gives up after a second id collision', async () => {
    repo.seed({ id: '000000000000000000000001', teamId: 'team-a', type: 'folder' });
    repo.seed({ id: '000000000000000000000002', teamId: 'team-a', type: 'folder' });

    const outcome = createDataset({ body: valid({ name: 'Docs' }), caller }, deps);

    await expect(outcome).rejects.toBeInstanceOf(DatasetIdConflictError);
    expect(repo.putAttempts).toBe(2);
  });
});
