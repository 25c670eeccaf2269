import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { LIST_LIMITS, listDatasets } from '#functions/list-datasets/list-datasets';
import { listDatasetsBodySchema } from '#functions/list-datasets/schema';
import { localDynamoClient } from '#infra/local/dynamo-engine';
import type { LocalAccessToken } from '#shared/local-credentials';
import { BUILT_IN_MODEL_CATALOG } from '#shared/model-catalog';
import { type DatasetRecord, DynamoDatasetRepository } from '#shared/repositories/datasets';
import { useTestServer } from '#test/support/local-server';
import { addAccessToken, teamRecords } from './create-dataset.helpers.ts';
import { kbClient, seedRecord, seedRecords } from './knowledge-base.helpers.ts';

let team: LocalAccessToken;

const server = useTestServer();

beforeEach(async () => {
  team = await addAccessToken(server);
});

/** `count` records of `type` under `parentId`, with increasing update times from `start`. */
function records(parentId: string | null, type: 'dataset' | 'folder', count: number, start = Date.UTC(2024, 0, 1)) {
  return Array.from({ length: count }, (_, i) =>
    seedRecord(team.teamId, parentId, type, `${type} ${i}`, new Date(start + i * 1000)),
  );
}

describe('list reads only the asked folder', () => {
  it('asks the engine for exactly the 5 children of a folder, with 2,000 records under other parents', async () => {
    const [folder, sibling] = records(null, 'folder', 2) as [DatasetRecord, DatasetRecord];
    const children = records(folder.id, 'dataset', 5);
    const elsewhere = [...records(null, 'dataset', 998), ...records(sibling.id, 'dataset', 1_000)];
    await seedRecords(server.documents, [folder, sibling, ...children, ...elsewhere]);
    // The list core over a client that adds up what every Query read from the engine.
    const client = localDynamoClient(server.engine);
    const queried = { calls: 0, scanned: 0, returned: 0 };
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const result = await next(args);
        if (context.commandName === 'QueryCommand') {
          const output = result.output as { ScannedCount?: number; Count?: number };
          queried.calls += 1;
          queried.scanned += output.ScannedCount ?? 0;
          queried.returned += output.Count ?? 0;
        }
        return result;
      },
      { step: 'initialize' },
    );
    const repo = new DynamoDatasetRepository(DynamoDBDocumentClient.from(client), server.tables.datasets);
    const caller = { scope: 'dataset' as const, teamId: team.teamId, tmbId: team.tmbId, tokenId: team.id };

    const items = await listDatasets(
      { body: listDatasetsBodySchema.parse({ parentId: folder.id }), caller },
      { repo, catalog: BUILT_IN_MODEL_CATALOG, limits: LIST_LIMITS },
    );
    const overHttp = await kbClient(server, `Bearer ${team.token}`).list({ parentId: folder.id });
    client.destroy();

    expect(queried).toEqual({ calls: 1, scanned: 5, returned: 5 });
    expect(items.map((i) => i._id).sort()).toEqual(children.map((c) => c.id).sort());
    expect((overHttp.body.data as unknown[]).length).toBe(5);
  });

  it('stops a list at maxItems and a search after maxSearched records, newest first', async () => {
    await seedRecords(server.documents, records(null, 'dataset', 30));
    const repo = new DynamoDatasetRepository(server.documents, server.tables.datasets);
    const caller = { scope: 'dataset' as const, teamId: team.teamId, tmbId: team.tmbId, tokenId: team.id };

    const listed = await listDatasets(
      { body: listDatasetsBodySchema.parse({ parentId: null }), caller },
      { repo, catalog: BUILT_IN_MODEL_CATALOG, limits: { maxItems: 7, maxSearched: 100 } },
    );
    const searched = await listDatasets(
      { body: listDatasetsBodySchema.parse({ searchKey: 'DATASET' }), caller },
      { repo, catalog: BUILT_IN_MODEL_CATALOG, limits: { maxItems: 100, maxSearched: 12 } },
    );

    expect(listed.map((i) => i.name)).toEqual(Array.from({ length: 7 }, (_, i) => `dataset ${29 - i}`));
    // The search reads the team's 12 newest-created records (ids are creation-time ordered).
    expect(searched.map((i) => i.name)).toEqual(Array.from({ length: 12 }, (_, i) => `dataset ${29 - i}`));
  });

  it('bounds a list of the whole team (no parentId) like a search: maxSearched read, maxItems answered', async () => {
    await seedRecords(server.documents, [
      ...records(null, 'dataset', 20),
      ...records('cccccccccccccccccccccccc', 'dataset', 10),
    ]);
    const repo = new DynamoDatasetRepository(server.documents, server.tables.datasets);
    const caller = { scope: 'dataset' as const, teamId: team.teamId, tmbId: team.tmbId, tokenId: team.id };

    const all = await listDatasets(
      { body: listDatasetsBodySchema.parse({}), caller },
      { repo, catalog: BUILT_IN_MODEL_CATALOG, limits: { maxItems: 100, maxSearched: 1000 } },
    );
    const bounded = await listDatasets(
      { body: listDatasetsBodySchema.parse({}), caller },
      { repo, catalog: BUILT_IN_MODEL_CATALOG, limits: { maxItems: 5, maxSearched: 12 } },
    );

    expect(all).toHaveLength(30);
    expect(bounded).toHaveLength(5);
  });
});

describe('deleting a large subtree', () => {
  it('deletes a folder holding 10,011 records in three levels within one call, and nothing else', async () => {
    const [top, keptFolder] = records(null, 'folder', 2) as [DatasetRecord, DatasetRecord];
    const level1 = records(top.id, 'folder', 10);
    const level2 = level1.flatMap((f) => records(f.id, 'folder', 10).map((r, i) => ({ ...r, name: `${f.name}/${i}` })));
    const leaves = level2.flatMap((f) => records(f.id, 'dataset', 99));
    const kept = [keptFolder, ...records(keptFolder.id, 'dataset', 20), ...records(null, 'dataset', 30)];
    const subtree = [top, ...level1, ...level2, ...leaves];
    await seedRecords(server.documents, [...subtree, ...kept]);
    expect(subtree).toHaveLength(10_011);

    const reply = await kbClient(server, `Bearer ${team.token}`).delete({ id: top.id });

    expect(reply.status).toBe(200);
    expect(reply.body).toStrictEqual({ code: 200, statusText: '', message: '', data: null });
    const left = (await teamRecords(server.documents, team.teamId)).map((r) => r.id).sort();
    expect(left).toEqual(kept.map((r) => r.id).sort());
  }, 180_000);
});
