import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { datasetKey } from '#shared/kb/contract';
import { docSk } from '#shared/kb/search/postings';
import type { TableName } from '#shared/tables';
import { expectError } from './create-dataset.helpers.ts';
import { type contentClient, CONTENT_PATHS as P, useEmbeddingWorld } from './kb-content.helpers.ts';
import { KB_PATHS } from './knowledge-base.helpers.ts';

// docs/knowledge-base-api.md, "Deleting", end to end through `npm start`'s server: a delete answers once the records
// are gone from every read; the in-process training queue removes chunks, vectors, postings and files afterwards.

const world = useEmbeddingWorld();
const { server } = world;
let api: ReturnType<typeof contentClient>;
beforeAll(() => {
  ({ api } = world);
});

const TEXT = Array.from(
  { length: 8 },
  (_, i) => `Lighthouse keeper notes, part ${i}: the lamp was trimmed at dusk.`,
).join('\n\n');

/** A trained text collection and a collection of pushed data in a new knowledge base, each with searchable chunks. */
async function filledKnowledgeBase() {
  const datasetId = await api.dataset('text-embedding-3-small');
  const { collectionId: text } = await api.ok<{ collectionId: string }>(
    api.post(P.createText, { datasetId, name: 'Notes', text: TEXT, chunkSize: 64 }),
  );
  expect(await api.trained(text)).toMatchObject({ status: 'ready' });
  const pushed = await api.ok<string>(api.post(P.createCollection, { datasetId, name: 'Pushed' }));
  await api.ok(api.post(P.pushData, { collectionId: pushed, data: [{ q: 'lighthouse lamp oil', a: 'whale oil' }] }));
  await server.trainingIdle();
  const chunk = (await api.ok<{ list: { _id: string }[] }>(api.post(P.dataV2, { collectionId: text }))).list[0]?._id;
  return { datasetId, text, pushed, chunk: chunk as string };
}

const search = (datasetId: string) =>
  api.post(P.searchTest, { datasetId, text: 'lighthouse lamp', searchMode: 'mixedRecall', limit: 5000, similarity: 0 });

/** The items of a table's partition for this knowledge base (content, vectors or postings). */
async function itemsOf(table: TableName, datasetId: string, prefix = ''): Promise<unknown[]> {
  const out = await server.documents.send(
    new QueryCommand({
      TableName: server.tables[table],
      // DynamoDB Local refuses an empty string in a key condition, as DynamoDB does: no prefix, no begins_with.
      KeyConditionExpression: prefix ? 'pk = :pk AND begins_with(sk, :prefix)' : 'pk = :pk',
      ExpressionAttributeValues: {
        ':pk': datasetKey(api.token.teamId, datasetId),
        ...(prefix ? { ':prefix': prefix } : {}),
      },
    }),
  );
  return out.Items ?? [];
}

describe('deleting in the background', () => {
  it('takes a deleted collection out of every read at once, and its chunks, vectors and postings out of the tables once the queue is idle', async () => {
    const { datasetId, text, pushed, chunk } = await filledKnowledgeBase();
    const before = await api.ok<{ list: { collectionId: string }[] }>(search(datasetId));
    expect(before.list.map((i) => i.collectionId)).toContain(text);
    const vectorsBefore = (await itemsOf('kbVectors', datasetId)).length;
    expect(await itemsOf('kbTerms', datasetId, docSk(chunk))).toHaveLength(1);

    expect(await api.ok(api.del(P.delete, { id: text }))).toBeNull();

    expectError(await api.get(P.detail, { id: text }), 404, 501003);
    expectError(await api.get(P.paths, { parentId: text }), 404, 501003);
    expectError(await api.post(P.dataV2, { collectionId: text }), 404, 501003);
    expectError(await api.get(P.dataDetail, { id: chunk }), 404, 501006);
    expectError(await api.post(P.export, { collectionId: text }), 404, 501003);
    expectError(await api.post(P.pushData, { collectionId: text, data: [{ q: 'again' }] }), 404, 501003);
    expectError(await api.post(P.retrain, { collectionId: text }), 404, 501003);
    const list = await api.ok<{ list: { _id: string }[] }>(api.post(P.listV2, { datasetId, searchTreeMode: true }));
    expect(list.list.map((c) => c._id)).toEqual([pushed]);
    const after = await api.ok<{ list: { collectionId: string }[] }>(search(datasetId));
    expect(after.list.length).toBeGreaterThan(0);
    expect(after.list.map((i) => i.collectionId)).not.toContain(text);

    await server.trainingIdle();

    const content = await itemsOf('kbContent', datasetId);
    expect(
      content.map((i) => (i as { collectionId?: string; id: string }).collectionId ?? (i as { id: string }).id),
    ).toEqual(content.map(() => pushed));
    // The pushed chunk's vectors stay; the text collection's are gone.
    const vectorsAfter = await itemsOf('kbVectors', datasetId);
    expect(vectorsAfter.length).toBeLessThan(vectorsBefore);
    expect(vectorsAfter.every((v) => (v as { collectionId?: string }).collectionId !== text)).toBe(true);
    expect(await itemsOf('kbTerms', datasetId, docSk(chunk))).toEqual([]);
  });

  it("takes a deleted knowledge base's collections and data out of every read at once, and its content out of the tables once the queue is idle", async () => {
    const { datasetId, text, chunk } = await filledKnowledgeBase();
    expect((await itemsOf('kbVectors', datasetId)).length).toBeGreaterThan(0);
    expect((await itemsOf('kbTerms', datasetId)).length).toBeGreaterThan(0);

    await api.ok(api.del(KB_PATHS.delete, { id: datasetId }));

    expectError(await api.get(P.detail, { id: text }), 404, 501003);
    expectError(await api.post(P.dataV2, { collectionId: text }), 404, 501003);
    expectError(await api.get(P.dataDetail, { id: chunk }), 404, 501006);
    expectError(await api.post(P.export, { collectionId: text }), 404, 501003);
    expectError(await api.post(P.listV2, { datasetId }), 404, 501002);
    expectError(await search(datasetId), 404, 501002);

    await server.trainingIdle();

    expect(await itemsOf('kbContent', datasetId)).toEqual([]);
    expect(await itemsOf('kbVectors', datasetId)).toEqual([]);
    expect(await itemsOf('kbTerms', datasetId)).toEqual([]);
  });
});
