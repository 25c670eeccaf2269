import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { StoredChannel } from '#shared/repositories/channels';
import { type Routing, routingOf } from '#test/support/family-routing';
import {
  DONEHUB_EXPECTED_ROUTING,
  DONEHUB_EXPECTED_SETTINGS,
  DONEHUB_EXPECTED_SKIPS,
} from './donehub-fixture.expected.ts';
import { callImport, expectNoSecrets, expectReport, useImportHarness } from './import-http.helpers.ts';
import { ONEHUB_EXPECTED_ROUTING, ONEHUB_EXPECTED_SETTINGS, ONEHUB_EXPECTED_SKIPS } from './onehub-fixture.expected.ts';

// One Hub's and Done Hub's tables through HTTP (the local server, a throwaway MariaDB loaded with the GORM-shaped
// fixture): the imported channels route every model to the same (provider, base URL, key) set as the gateway itself,
// worked out by hand from its Go source (test/integration/<family>-fixture.expected.ts).

const { db, server, channels } = useImportHarness();

const fixture = (name: string) => readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8');

interface Case {
  readonly kind: 'onehub' | 'donehub';
  readonly sql: string;
  readonly rows: number;
  readonly routing: Routing;
  readonly skips: Readonly<Record<number, string>>;
  readonly settings: Readonly<Record<number, unknown>>;
}

const CASES: readonly Case[] = [
  {
    kind: 'onehub',
    sql: fixture('onehub-channels.sql'),
    rows: 22,
    routing: ONEHUB_EXPECTED_ROUTING,
    skips: ONEHUB_EXPECTED_SKIPS,
    settings: ONEHUB_EXPECTED_SETTINGS,
  },
  {
    kind: 'donehub',
    sql: fixture('donehub-channels.sql'),
    rows: 16,
    routing: DONEHUB_EXPECTED_ROUTING,
    skips: DONEHUB_EXPECTED_SKIPS,
    settings: DONEHUB_EXPECTED_SETTINGS,
  },
];

function legacyIdOf(channel: StoredChannel): number {
  return Number(channel.source.legacyId);
}

describe.each(CASES)('importing the $kind fixture', ({ kind, sql, rows, routing, skips, settings }) => {
  it('detects the family and routes every model to the channels the gateway itself uses', async () => {
    const database = await db.createDatabase(undefined, sql);
    await channels.clear();

    const reply = await callImport(server, { json: { dsn: db.dsn(database) } });

    const report = expectReport(reply);
    expect(report.source).toMatchObject({ kind, rows });
    expect(routingOf(await channels.scan())).toEqual(routing);
  });

  it('skips exactly the rows it cannot import, each with its reason', async () => {
    const database = await db.createDatabase(undefined, sql);
    await channels.clear();

    const report = expectReport(await callImport(server, { json: { dsn: db.dsn(database), dryRun: true } }));

    const skipped = Object.fromEntries(
      report.items.filter((i) => i.outcome === 'skipped').map((i) => [Number(i.legacyId), i.reason]),
    );
    expect(skipped).toEqual(skips);
    expect(report.rows).toEqual({ imported: rows - Object.keys(skips).length, skipped: Object.keys(skips).length });
  });

  it('carries the settings that change where or how a request is sent', async () => {
    const database = await db.createDatabase(undefined, sql);
    await channels.clear();

    expect((await callImport(server, { json: { dsn: db.dsn(database) } })).status).toBe(200);

    const stored = await channels.scan();
    for (const [legacyId, expected] of Object.entries(settings)) {
      const channel = stored.find((c) => legacyIdOf(c) === Number(legacyId));
      expect([legacyId, channel?.settings]).toEqual([legacyId, expected]);
    }
  });

  it('never shows a key or a secret setting in the report', async () => {
    const database = await db.createDatabase(undefined, sql);
    await channels.clear();

    const reply = await callImport(server, { json: { dsn: db.dsn(database) } });

    const keys = (await channels.scan()).map((c) => c.key);
    expectNoSecrets([reply], { server, mysqlPassword: db.password, extra: keys });
  });
});
