import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateTableCommand, DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { type LocalBackend, startLocalBackend } from '#infra/local/backend';
import { localDynamoClient, startDynamoEngine } from '#infra/local/dynamo-engine';
import { type LocalGateway, startGateway } from '#infra/local/gateway';
import { loadOrCreateLocalCredentials } from '#shared/local-credentials';
import { backfillParentKeys } from '#shared/repositories/datasets-backfill';
import { DATASETS_BY_PARENT } from '#shared/tables';
import { contractCheckHook } from '#test/support/local-server';
import { kbClient, seedRecord } from './knowledge-base.helpers.ts';

// A data directory as the version before the by-parent index left it: the datasets table without
// the index, records without `parentKey`. `npm start` must serve it with no manual step.
const dataDir = mkdtempSync(join(tmpdir(), 'kb-upgrade-'));
let backend: LocalBackend | undefined;
let gateway: LocalGateway | undefined;

afterAll(async () => {
  await gateway?.close();
  await backend?.close();
  rmSync(dataDir, { recursive: true, force: true });
  vi.unstubAllEnvs();
});

describe('npm start on data written before the by-parent index', () => {
  it('adds the index, gives old records their key on start, and lists them with nothing lost', async () => {
    vi.stubEnv('LOG_LEVEL', 'SILENT');
    const { credentials } = await loadOrCreateLocalCredentials(join(dataDir, 'credentials.json'));
    const token = credentials.accessTokens[0];
    if (!token) throw new Error('no local token');
    const folder = seedRecord(token.teamId, null, 'folder', 'Old folder');
    const old = [
      folder,
      seedRecord(token.teamId, folder.id, 'dataset', 'Old child'),
      seedRecord(token.teamId, null, 'dataset', 'Old root'),
    ];
    const engine = await startDynamoEngine({ port: 0, path: join(dataDir, 'dynamodb') });
    const raw = localDynamoClient(engine);
    await raw.send(
      new CreateTableCommand({
        TableName: 'datasets',
        BillingMode: 'PAY_PER_REQUEST',
        KeySchema: [
          { AttributeName: 'teamId', KeyType: 'HASH' },
          { AttributeName: 'id', KeyType: 'RANGE' },
        ],
        AttributeDefinitions: [
          { AttributeName: 'teamId', AttributeType: 'S' },
          { AttributeName: 'id', AttributeType: 'S' },
        ],
      }),
    );
    await DynamoDBDocumentClient.from(raw).send(
      new BatchWriteCommand({ RequestItems: { datasets: old.map((Item) => ({ PutRequest: { Item } })) } }),
    );
    raw.destroy();
    await engine.close();

    backend = await startLocalBackend({ dataDir, dynamoPort: 0 });
    gateway = await startGateway(backend, { host: '127.0.0.1', port: 0, onResponse: contractCheckHook() });
    const api = kbClient(gateway, `Bearer ${token.token}`);
    const client = localDynamoClient(backend.dynamo);
    const documents = DynamoDBDocumentClient.from(client);

    const root = await api.list({ parentId: null });
    const inFolder = await api.list({ parentId: folder.id });
    const { Table } = await client.send(new DescribeTableCommand({ TableName: 'datasets' }));
    const stored = await Promise.all(
      old.map(
        async (r) =>
          (await documents.send(new GetCommand({ TableName: 'datasets', Key: { teamId: r.teamId, id: r.id } }))).Item,
      ),
    );
    const again = await backfillParentKeys(documents, 'datasets');
    client.destroy();

    expect((root.body.data as { name: string }[]).map((i) => i.name).sort()).toEqual(['Old folder', 'Old root']);
    expect((inFolder.body.data as { name: string }[]).map((i) => i.name)).toEqual(['Old child']);
    expect(Table?.GlobalSecondaryIndexes?.map((i) => i.IndexName)).toEqual([DATASETS_BY_PARENT.name]);
    expect(stored).toEqual(old.map((r) => ({ ...r, parentKey: `${r.teamId}#${r.parentId ?? 'root'}` })));
    expect(again).toEqual({ found: 0, updated: 0 });
  });
});
