import { describe, expect, it } from 'vitest';
import { channelPath } from './channel-review.helpers.ts';
import { ROUTES_FIXTURE_EXPECTED, ROUTES_FIXTURE_SQL } from './import.helpers.ts';
import {
  callImport,
  callProxy,
  expectData,
  expectNoSecrets,
  expectReport,
  useImportHarness,
} from './import-http.helpers.ts';

// docs/channel-import.md, "Routes", through HTTP: the local server's import over a real MariaDB table.

const { db, server, channels } = useImportHarness();

const secretsOf = () => ({ server, mysqlPassword: db.password });

describe('routes in the import report', () => {
  it('lists a model served only by a row of an unknown type as lost, one served by two rows, one skipped, as changed; the import reports what the dry run did', async () => {
    const database = await db.createDatabase(undefined, ROUTES_FIXTURE_SQL);
    await channels.clear();
    const dsn = db.dsn(database);

    const preview = await callImport(server, { json: { dsn, dryRun: true } });
    const stored = await channels.scan();
    const run = await callImport(server, { json: { dsn } });

    const dryRun = expectReport(preview);
    expect(dryRun.routes).toEqual(ROUTES_FIXTURE_EXPECTED);
    expect(dryRun.items.filter((i) => i.outcome === 'skipped').map((i) => i.legacyId)).toEqual([2, 3, 5]);
    expect(stored).toEqual([]);
    const real = expectReport(run);
    expect(real).toEqual({ ...dryRun, dryRun: false });
    expect(await channels.scan()).toHaveLength(4);
    expectNoSecrets([preview, run], secretsOf());
  });

  it('loses a route once the operator disables the only channel serving it, and keeps it while the edit leaves it enabled', async () => {
    const database = await db.createDatabase(undefined, ROUTES_FIXTURE_SQL);
    await channels.clear();
    const dsn = db.dsn(database);
    expectReport(await callImport(server, { json: { dsn } }));
    const openai = (await channels.scan()).find((c) => c.source.legacyId === 1);
    if (openai === undefined) throw new Error('legacy row 1 was not imported');

    const renamed = await callProxy(server, { method: 'PUT', path: channelPath(openai.id), json: { name: 'ours' } });
    const whileEnabled = await callImport(server, { json: { dsn, dryRun: true } });
    const disabled = await callProxy(server, {
      method: 'PUT',
      path: channelPath(openai.id),
      json: { status: 'disabled' },
    });
    const afterDisabling = await callImport(server, { json: { dsn, dryRun: true } });

    expectData(renamed);
    expectData(disabled);
    expect(expectReport(whileEnabled)).toMatchObject({ channels: { edited: 1 }, routes: ROUTES_FIXTURE_EXPECTED });
    // Row 1 alone served gpt-4o in default and gpt-4o-mini in vip; row 6 still serves gpt-4o-mini in default.
    expect(expectReport(afterDisabling).routes).toEqual({
      total: 6,
      kept: 0,
      changed: 1,
      lost: 5,
      items: [
        { group: 'default', model: 'gpt-4o', legacy: 1, imported: 0 },
        { group: 'vip', model: 'gpt-4o', legacy: 2, imported: 0 },
        { group: 'vip', model: 'gpt-4o-mini', legacy: 1, imported: 0 },
        { group: 'night shift', model: 'o1', legacy: 1, imported: 0 },
        { group: 'default', model: 'only-on-fork', legacy: 1, imported: 0 },
        { group: 'default', model: 'gpt-4o-mini', legacy: 2, imported: 1 },
      ],
      itemsTruncated: false,
      complete: true,
    });
    expectNoSecrets([whileEnabled, afterDisabling], secretsOf());
  });
});
