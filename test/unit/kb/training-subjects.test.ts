import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, type BatchGetCommandInput, DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { newObjectId } from '#shared/ids';
import { collectionSortKey, datasetKey } from '#shared/kb/contract';
import { TrainingSubjects } from '#shared/repositories/training-subjects';
import { storeKnowledgeBase, storeTextCollection, useKbContentTables } from '#test/support/kb-content';

const world = useKbContentTables();
const TEAM = 'team-subjects';

async function datasetWithCollection() {
  const dataset = await storeKnowledgeBase(world, TEAM);
  const collection = await storeTextCollection(world, dataset);
  return { dataset, collection };
}

describe("a training message's subjects", () => {
  it('reads the collection and its knowledge base as the repositories store them', async () => {
    const { dataset, collection } = await datasetWithCollection();

    const found = await world.subjects.read(TEAM, dataset.id, collection.id);

    expect(found.dataset).toEqual(await world.datasets.get(TEAM, dataset.id));
    expect(found.collection).toEqual(await world.content.getCollection(TEAM, dataset.id, collection.id));
    expect(found.dataset).not.toHaveProperty('parentKey');
  });

  it("finds nothing of another team's ids, nor a collection that is not there", async () => {
    const { dataset, collection } = await datasetWithCollection();

    expect(await world.subjects.read('team-other', dataset.id, collection.id)).toEqual({});
    expect(await world.subjects.read(TEAM, dataset.id, newObjectId())).toEqual({ dataset: expect.any(Object) });
  });
});

describe('subjects read at once', () => {
  it('go together while a read is in flight, 50 messages per call, each knowledge base asked once per call', async () => {
    const { dataset, collection } = await datasetWithCollection();
    const documents = DynamoDBDocumentClient.from(new DynamoDBClient({}));
    const dynamo = mockClient(documents);
    const subjects = new TrainingSubjects(documents, { kbContent: 'content-t', datasets: 'datasets-t' });
    // Answers from the real tables' items: the collection for its own id, nothing for the others.
    const stored = await world.subjects.read(TEAM, dataset.id, collection.id);
    dynamo.on(BatchGetCommand).callsFake(async (input: BatchGetCommandInput) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      const keys = input.RequestItems?.['content-t']?.Keys ?? [];
      return {
        Responses: {
          'content-t': keys.filter((k) => k.sk === collectionSortKey(collection.id)).map(() => stored.collection),
          'datasets-t': [{ ...stored.dataset, parentKey: 'x' }],
        },
      };
    });
    const ids = [collection.id, ...Array.from({ length: 120 }, () => newObjectId())];

    const found = await Promise.all(ids.map((id) => subjects.read(TEAM, dataset.id, id)));

    expect(found[0]).toEqual(stored);
    expect(found.slice(1).every((f) => f.collection === undefined && f.dataset?.id === dataset.id)).toBe(true);
    const calls = dynamo.commandCalls(BatchGetCommand).map((c) => c.args[0].input.RequestItems);
    // The first alone; the 120 that arrived meanwhile in three calls of at most 50.
    expect(calls.map((c) => c?.['content-t']?.Keys?.length)).toEqual([1, 50, 50, 20]);
    expect(calls.map((c) => c?.['datasets-t']?.Keys)).toEqual(calls.map(() => [{ teamId: TEAM, id: dataset.id }]));
    dynamo.restore();
  });
});

describe('the subjects read on the wire', () => {
  const documents = DynamoDBDocumentClient.from(new DynamoDBClient({}));
  const dynamo = mockClient(documents);
  const subjects = new TrainingSubjects(documents, { kbContent: 'content-t', datasets: 'datasets-t' });
  afterEach(() => dynamo.reset());

  it('is one strongly consistent BatchGetItem of both keys, its unprocessed keys asked again as first sent', async () => {
    const collection = { pk: datasetKey(TEAM, 'd1'), sk: collectionSortKey('c1'), id: 'c1' };
    dynamo
      .on(BatchGetCommand)
      .resolvesOnce({
        Responses: { 'content-t': [collection] },
        UnprocessedKeys: { 'datasets-t': { Keys: [{ teamId: TEAM, id: 'd1' }] } },
      })
      .resolvesOnce({ Responses: { 'datasets-t': [{ teamId: TEAM, id: 'd1', parentKey: `${TEAM}#root` }] } });

    const found = await subjects.read(TEAM, 'd1', 'c1');

    expect(found).toEqual({ collection, dataset: { teamId: TEAM, id: 'd1' } });
    const calls = dynamo.commandCalls(BatchGetCommand).map((c) => c.args[0].input.RequestItems);
    expect(calls).toEqual([
      {
        'content-t': { Keys: [{ pk: datasetKey(TEAM, 'd1'), sk: collectionSortKey('c1') }], ConsistentRead: true },
        'datasets-t': { Keys: [{ teamId: TEAM, id: 'd1' }], ConsistentRead: true },
      },
      { 'datasets-t': { Keys: [{ teamId: TEAM, id: 'd1' }], ConsistentRead: true } },
    ]);
    expect(dynamo.commandCalls(GetCommand)).toHaveLength(0);
  });
});
