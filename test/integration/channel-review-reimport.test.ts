import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChannelView } from '#shared/channel-view';
import type { TestServer } from '#test/support/local-server';
import type { TestMariaDb } from '#test/support/mariadb';
import { channelPath } from './channel-review.helpers.ts';
import { FIXTURE_SQL } from './import.helpers.ts';
import {
  type ChannelsTable,
  callImport,
  callProxy,
  type Exchange,
  expectData,
  expectError,
  expectNoSecrets,
  expectReport,
  startImportHarness,
  stopImportHarness,
} from './import-http.helpers.ts';

// Review-and-fix through HTTP, then a re-import: the import respects what an operator corrected.

let db: TestMariaDb;
let server: TestServer;
let channels: ChannelsTable;

beforeAll(async () => {
  ({ db, server, channels } = await startImportHarness());
});

afterAll(() => stopImportHarness({ db, server, channels }));

describe('edits survive a re-import of the legacy gateway fixture', () => {
  it('keeps two edits, creates the deleted channel again, and reports edited 2, created 1, unchanged 18', async () => {
    const database = await db.createDatabase(undefined, FIXTURE_SQL);
    await channels.clear();
    const exchanges: Exchange[] = [];
    const proxy = async (method: string, path: string, json?: unknown) => {
      const exchange = await callProxy(server, { method, path, json });
      exchanges.push(exchange);
      return exchange;
    };
    const importOnce = async (dryRun: boolean) => {
      const exchange = await callImport(server, { json: { dsn: db.dsn(database), dryRun } });
      exchanges.push(exchange);
      return expectReport(exchange);
    };
    expect((await importOnce(false)).channels).toEqual({ created: 21, updated: 0, unchanged: 0, edited: 0 });
    const listed = expectData<{ channels: ChannelView[]; total: number }>(
      await proxy('GET', '/api/channels/?per_page=100'),
    );
    expect(listed.total).toBe(21);
    const [modelsEdited, statusEdited, deleted] = listed.channels.filter((c) => c.status === 'enabled');
    if (!modelsEdited || !statusEdited || !deleted) throw new Error('the fixture has fewer than 3 enabled channels');

    const editedModels = expectData<ChannelView>(
      await proxy('PUT', channelPath(modelsEdited.id), { models: ['reviewed-model-a', 'reviewed-model-b'] }),
    );
    const editedStatus = expectData<ChannelView>(
      await proxy('PUT', channelPath(statusEdited.id), { status: 'disabled' }),
    );
    expect(expectData(await proxy('DELETE', channelPath(deleted.id)))).toBeNull();
    const beforeReimport = await channels.scan();

    const dryRun = await importOnce(true);
    const afterDryRun = await channels.scan();
    const report = await importOnce(false);

    expect(dryRun.channels).toEqual({ created: 1, updated: 0, unchanged: 18, edited: 2 });
    expect(afterDryRun).toEqual(beforeReimport);
    expect(report.channels).toEqual({ created: 1, updated: 0, unchanged: 18, edited: 2 });
    const detail = async (id: string) => expectData<ChannelView>(await proxy('GET', channelPath(id)));
    expect(await detail(modelsEdited.id)).toEqual(editedModels);
    expect(await detail(statusEdited.id)).toEqual(editedStatus);
    expect(editedModels.models).toEqual(['reviewed-model-a', 'reviewed-model-b']);
    expect(editedStatus.status).toBe('disabled');
    const back = await detail(deleted.id);
    expect(back).toMatchObject({ ...deleted, createdAt: expect.any(String), updatedAt: expect.any(String) });
    expect(back.editedAt).toBeNull();
    expect(await channels.scan()).toHaveLength(21);
    expectNoSecrets(exchanges, { server, mysqlPassword: db.password });
  });

  it('answers 404 for a channel deleted twice and leaves the next import to create it once', async () => {
    const database = await db.createDatabase(undefined, FIXTURE_SQL);
    await channels.clear();
    expectReport(await callImport(server, { json: { dsn: db.dsn(database) } }));
    const [first] = await channels.scan();
    await callProxy(server, { method: 'DELETE', path: channelPath(first!.id) });

    const again = await callProxy(server, { method: 'DELETE', path: channelPath(first!.id) });
    const report = expectReport(await callImport(server, { json: { dsn: db.dsn(database) } }));

    expectError(again, 404, /^No channel has this id$/);
    expect(report.channels).toEqual({ created: 1, updated: 0, unchanged: 20, edited: 0 });
  });
});
