import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { datasetKey } from '#shared/kb/contract';
import { FASTGPT_TRAINING_MODES } from '#test/support/fastgpt-content-types';
import { useTestServer } from '#test/support/local-server';
import { expectCreated, expectError } from './create-dataset.helpers.ts';
import { type contentClient, newContentClient, CONTENT_PATHS as P } from './kb-content.helpers.ts';
import { KB_PATHS } from './knowledge-base.helpers.ts';

const UNKNOWN_ID = '65a0c0ffee0000000000beef';
const server = useTestServer();

let api: ReturnType<typeof contentClient>;
let other: ReturnType<typeof contentClient>;
let datasetId: string;

beforeEach(async () => {
  api = await newContentClient(server);
  other = await newContentClient(server);
  datasetId = await api.dataset();
});

describe('collection/create', () => {
  it('creates an empty collection and answers its id, as FastGPT does', async () => {
    const id = await api.ok<string>(api.post(P.createCollection, { datasetId, name: 'Manual', type: 'virtual' }));

    expect(id).toMatch(/^[0-9a-f]{24}$/);
    const detail = await api.ok(api.get(P.detail, { id }));
    expect(detail).toMatchObject({
      _id: id,
      datasetId,
      name: 'Manual',
      type: 'virtual',
      parentId: null,
      status: 'ready',
    });
  });

  it('creates a collection inside a collection folder', async () => {
    const folder = await api.ok<string>(api.post(P.createCollection, { datasetId, name: 'Dir', type: 'folder' }));

    const id = await api.ok<string>(api.post(P.createCollection, { datasetId, parentId: folder, name: 'In' }));

    const list = await api.ok<{ list: { _id: string }[]; total: number }>(
      api.post(P.listV2, { datasetId, parentId: folder }),
    );
    expect(list).toMatchObject({ total: 1, list: [{ _id: id }] });
  });

  it('answers 507004 when the name is missing', async () => {
    expectError(await api.post(P.createCollection, { datasetId }), 400, 507004);
  });

  it('answers 507000 for a type it cannot create empty', async () => {
    expectError(await api.post(P.createCollection, { datasetId, name: 'x', type: 'link' }), 400, 507000);
  });

  it("answers 501002 for another team's knowledge base and for an unknown one", async () => {
    expectError(await other.post(P.createCollection, { datasetId, name: 'x' }), 404, 501002);
    expectError(await api.post(P.createCollection, { datasetId: UNKNOWN_ID, name: 'x' }), 404, 501002);
  });

  it('answers 501003 for a parent that is not a collection of this knowledge base', async () => {
    expectError(await api.post(P.createCollection, { datasetId, parentId: UNKNOWN_ID, name: 'x' }), 404, 501003);
  });
});

describe('collection/create/text and training', () => {
  it('answers at once with insertLen 0, then trains (status and counts on the list and the detail)', async () => {
    const created = await api.ok<{ collectionId: string; results: { insertLen: number } }>(
      api.post(P.createText, { datasetId, name: 'FAQ', text: 'First paragraph.\n\n第二段。' }),
    );
    expect(created.results).toEqual({ insertLen: 0 });

    const detail = await api.trained(created.collectionId);

    // No channel serves the vector model in this world: the chunks are stored, and the collection says why.
    expect(detail).toMatchObject({
      status: 'error',
      errorMsg: 'no channel serves text-embedding-3-small for group default',
      hasError: true,
      dataAmount: 1,
      trainingAmount: 0,
    });
    const data = await api.ok<{ list: { q: string }[]; total: number }>(
      api.post(P.dataV2, { collectionId: created.collectionId }),
    );
    expect(data.total).toBe(1);
    expect(data.list[0]?.q).toContain('第二段');
    const queue = await api.ok(api.get(P.trainingQueue, { datasetId }));
    expect(queue).toMatchObject({ trainingCount: 0, errorCollectionCount: 1, hasError: true });
  });

  it('answers 507004 without a text', async () => {
    expectError(await api.post(P.createText, { datasetId, name: 'x', text: '  ' }), 400, 507004);
  });
});

describe('collection/listV2 and the deprecated list', () => {
  it('pages with offset or pageNum, newest first, and the old call answers the old shape', async () => {
    const ids: string[] = [];
    for (const name of ['a', 'b', 'c']) {
      ids.push(await api.ok<string>(api.post(P.createCollection, { datasetId, name })));
    }

    const byOffset = await api.ok<{ list: { _id: string }[]; total: number }>(
      api.post(P.listV2, { datasetId, offset: 1, pageSize: 1 }),
    );
    const old = await api.ok<{ data: { _id: string }[]; total: number; pageNum: number; pageSize: number }>(
      api.post(P.listOld, { datasetId, pageNum: 2, pageSize: 2 }),
    );

    expect(byOffset).toEqual({ list: [expect.objectContaining({ _id: ids[1] })], total: 3 });
    expect(old).toMatchObject({ pageNum: 2, pageSize: 2, total: 3, data: [{ _id: ids[0] }] });
  });

  it('searches names across folders with searchText', async () => {
    const folder = await api.ok<string>(api.post(P.createCollection, { datasetId, name: 'Dir', type: 'folder' }));
    await api.ok(api.post(P.createCollection, { datasetId, parentId: folder, name: 'Pricing FAQ' }));

    const found = await api.ok<{ list: { name: string }[] }>(api.post(P.listV2, { datasetId, searchText: 'faq' }));

    expect(found.list.map((c) => c.name)).toEqual(['Pricing FAQ']);
  });

  it('cuts a page larger than it serves instead of refusing it (FastGPT cuts listV2 at 100), and refuses 0', async () => {
    for (let i = 0; i < 12; i++) await api.ok(api.post(P.createCollection, { datasetId, name: `c${i}` }));

    const large = await api.ok<{ list: unknown[]; total: number }>(api.post(P.listV2, { datasetId, pageSize: 5000 }));

    expect(large.total).toBe(12);
    expect(large.list).toHaveLength(12);
    expectError(await api.post(P.listV2, { datasetId, pageSize: 0 }), 400, 507000);
  });

  it("answers 501002 for another team's knowledge base", async () => {
    expectError(await other.post(P.listV2, { datasetId }), 404, 501002);
  });
});

describe('collection/detail, update and delete', () => {
  it("answers 501003 for another team's collection, 507004 without an id and 507000 for a malformed one", async () => {
    const id = await api.ok<string>(api.post(P.createCollection, { datasetId, name: 'x' }));

    expectError(await other.get(P.detail, { id }), 404, 501003);
    expectError(await api.get(P.detail, {}), 400, 507004);
    expectError(await api.get(P.detail, { id: 'nope' }), 400, 507000);
    expectError(await other.put(P.update, { id, name: 'stolen' }), 404, 501003);
    expectError(await other.del(P.delete, { id }), 404, 501003);
  });

  it('renames with PUT and with POST, and moves into a folder but never into itself', async () => {
    const folder = await api.ok<string>(api.post(P.createCollection, { datasetId, name: 'Dir', type: 'folder' }));
    const id = await api.ok<string>(api.post(P.createCollection, { datasetId, name: 'x' }));

    await api.ok(api.put(P.update, { id, name: 'renamed' }));
    await api.ok(api.post(P.update, { id, parentId: folder }));

    expect(await api.ok(api.get(P.detail, { id }))).toMatchObject({ name: 'renamed', parentId: folder });
    expectError(await api.put(P.update, { id: folder, parentId: folder }), 400, 507000);
  });

  it('deletes a folder with the collections and data in it', async () => {
    const folder = await api.ok<string>(api.post(P.createCollection, { datasetId, name: 'Dir', type: 'folder' }));
    const inner = await api.ok<{ collectionId: string }>(
      api.post(P.createText, { datasetId, parentId: folder, name: 'T', text: 'Some text.' }),
    );
    await api.trained(inner.collectionId);

    await api.ok(api.del(P.delete, { id: folder }));

    expectError(await api.get(P.detail, { id: folder }), 404, 501003);
    expectError(await api.get(P.detail, { id: inner.collectionId }), 404, 501003);
    expectError(await api.post(P.dataV2, { collectionId: inner.collectionId }), 404, 501003);
  });

  it('deleting the knowledge base deletes its collections and data', async () => {
    const created = await api.ok<{ collectionId: string }>(
      api.post(P.createText, { datasetId, name: 'T', text: 'Some text.' }),
    );
    await api.trained(created.collectionId);

    await api.ok(api.del(KB_PATHS.delete, { id: datasetId }));

    expectError(await api.get(P.detail, { id: created.collectionId }), 404, 501003);
  });

  it("deleting a folder deletes the content of its knowledge bases, the empty ones' records read in one call", async () => {
    const folder = expectCreated(await api.post(KB_PATHS.folderCreate, { name: 'Dir' }));
    const full = expectCreated(await api.post(KB_PATHS.create, { name: 'Full', parentId: folder }));
    expectCreated(await api.post(KB_PATHS.create, { name: 'Empty', parentId: folder }));
    const created = await api.ok<{ collectionId: string }>(
      api.post(P.createText, { datasetId: full, name: 'T', text: 'Some text.' }),
    );
    await api.trained(created.collectionId);

    await api.ok(api.del(KB_PATHS.delete, { id: folder }));

    expectError(await api.get(P.detail, { id: created.collectionId }), 404, 501003);
    // The content goes in the background (the training queue), after the answer.
    await server.trainingIdle();
    const left = await server.documents.send(
      new QueryCommand({
        TableName: server.tables.kbContent,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': datasetKey(api.token.teamId, full) },
      }),
    );
    expect(left.Items ?? []).toEqual([]);
  });
});

describe('collection/paths', () => {
  it('answers the folders from the root down to the collection, by sourceId or by the older parentId', async () => {
    const outer = await api.ok<string>(api.post(P.createCollection, { datasetId, name: 'Outer', type: 'folder' }));
    const inner = await api.ok<string>(
      api.post(P.createCollection, { datasetId, parentId: outer, name: 'Inner', type: 'folder' }),
    );
    const expected = [
      { parentId: outer, parentName: 'Outer' },
      { parentId: inner, parentName: 'Inner' },
    ];

    expect(await api.ok(api.get(P.paths, { sourceId: inner }))).toEqual(expected);
    expect(await api.ok(api.get(P.paths, { parentId: inner }))).toEqual(expected);
    expect(await api.ok(api.get(P.paths, { sourceId: outer }))).toEqual(expected.slice(0, 1));
  });

  it('answers [] without an id, as FastGPT does', async () => {
    expect(await api.ok(api.get(P.paths, {}))).toEqual([]);
    expect(await api.ok(api.get(P.paths, { sourceId: '' }))).toEqual([]);
  });

  it("answers 501003 for another team's collection and for an unknown one, 507000 for a malformed id", async () => {
    const folder = await api.ok<string>(api.post(P.createCollection, { datasetId, name: 'Dir', type: 'folder' }));

    expectError(await other.get(P.paths, { sourceId: folder }), 404, 501003);
    expectError(await api.get(P.paths, { sourceId: UNKNOWN_ID }), 404, 501003);
    expectError(await api.get(P.paths, { sourceId: 'nope' }), 400, 507000);
  });
});

describe('collection/trainingDetail', () => {
  const zeros = Object.fromEntries(FASTGPT_TRAINING_MODES.map((mode) => [mode, 0]));

  it('counts a training that found no embedding channel: its chunk stored, without a vector, an embedding error', async () => {
    const created = await api.ok<{ collectionId: string }>(
      api.post(P.createText, { datasetId, name: 'T', text: 'Some text.' }),
    );
    await api.trained(created.collectionId);

    expect(await api.ok(api.get(P.trainingDetail, { collectionId: created.collectionId }))).toEqual({
      trainingType: 'chunk',
      advancedTraining: { customPdfParse: false, imageIndex: false, autoIndexes: false },
      queuedCounts: zeros,
      trainingCounts: zeros,
      errorCounts: { ...zeros, chunk: 1 },
      trainedCount: 1,
    });
  });

  it('answers every count 0 for an empty collection (ready: nothing to train)', async () => {
    const id = await api.ok<string>(api.post(P.createCollection, { datasetId, name: 'Manual' }));

    expect(await api.ok(api.get(P.trainingDetail, { collectionId: id }))).toMatchObject({
      queuedCounts: zeros,
      trainingCounts: zeros,
      errorCounts: zeros,
      trainedCount: 0,
    });
  });

  it("answers 501003 for another team's collection and an unknown one, 507004 without an id, 507000 for a malformed one", async () => {
    const id = await api.ok<string>(api.post(P.createCollection, { datasetId, name: 'Mine' }));

    expectError(await other.get(P.trainingDetail, { collectionId: id }), 404, 501003);
    expectError(await api.get(P.trainingDetail, { collectionId: UNKNOWN_ID }), 404, 501003);
    expectError(await api.get(P.trainingDetail, {}), 400, 507004);
    expectError(await api.get(P.trainingDetail, { collectionId: 'nope' }), 400, 507000);
  });
});

describe('collection/delete by POST (FastGPT’s web client from 4.10)', () => {
  it('deletes the collections of a body of collectionIds, and none when one of them is another team’s', async () => {
    const mine = await api.ok<string>(api.post(P.createCollection, { datasetId, name: 'Mine' }));
    const theirs = await other.ok<string>(
      other.post(P.createCollection, { datasetId: await other.dataset(), name: 'Theirs' }),
    );

    expectError(await api.post(P.delete, { collectionIds: [mine, theirs] }), 404, 501003);
    expect(await api.ok(api.get(P.detail, { id: mine }))).toMatchObject({ _id: mine });

    expect(await api.ok(api.post(P.delete, { collectionIds: [mine] }))).toBeNull();
    expectError(await api.get(P.detail, { id: mine }), 404, 501003);
    expect(await other.ok(other.get(P.detail, { id: theirs }))).toMatchObject({ _id: theirs });
  });
});

describe('collection/create/reTrainingCollection', () => {
  const PARAGRAPHS = Array.from(
    { length: 6 },
    (_, i) => `Paragraph ${i + 1} of the manual: ${'the setting is explained in plain words here. '.repeat(4)}`,
  ).join('\n\n');

  it('trains the collection again with new settings, keeping its id; its chunks are replaced and counted', async () => {
    const created = await api.ok<{ collectionId: string }>(
      api.post(P.createText, { datasetId, name: 'Manual', text: PARAGRAPHS, chunkSize: 2000 }),
    );
    const first = await api.trained(created.collectionId);

    const answer = await api.ok(
      api.post(P.retrain, { datasetId, collectionId: created.collectionId, chunkSize: 200, trainingType: 'chunk' }),
    );
    const again = await api.trained(created.collectionId);

    expect(first).toMatchObject({ dataAmount: 1, chunkSize: 2000 });
    expect(answer).toEqual({ collectionId: created.collectionId });
    expect(again).toMatchObject({ _id: created.collectionId, chunkSize: 200, trainingAmount: 0 });
    const data = await api.ok<{ list: { q: string }[]; total: number }>(
      api.post(P.dataV2, { collectionId: created.collectionId, pageSize: 30 }),
    );
    expect(data.total).toBeGreaterThan(1);
    expect(again.dataAmount).toBe(data.total);
  });

  it('answers 507000 for a collection of data entered by hand (no source) and for a folder', async () => {
    const manual = await api.ok<string>(api.post(P.createCollection, { datasetId, name: 'Manual' }));
    const folder = await api.ok<string>(api.post(P.createCollection, { datasetId, name: 'Dir', type: 'folder' }));

    expectError(await api.post(P.retrain, { collectionId: manual }), 400, 507000);
    expectError(await api.post(P.retrain, { collectionId: folder }), 400, 507000);
  });

  it("answers 501003 for another team's collection, an unknown one, or another knowledge base's id; 507004 without an id", async () => {
    const created = await api.ok<{ collectionId: string }>(
      api.post(P.createText, { datasetId, name: 'T', text: 'Some text.' }),
    );
    await api.trained(created.collectionId);

    expectError(await other.post(P.retrain, { collectionId: created.collectionId }), 404, 501003);
    expectError(await api.post(P.retrain, { collectionId: UNKNOWN_ID }), 404, 501003);
    expectError(await api.post(P.retrain, { collectionId: created.collectionId, datasetId: UNKNOWN_ID }), 404, 501003);
    expectError(await api.post(P.retrain, { datasetId }), 400, 507004);
  });
});
