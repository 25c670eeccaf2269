import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ReportItem } from '#shared/schemas/import-report';
import { routingOf } from '#test/support/family-routing';
import { ORACLES } from './family-oracles.ts';
import { importDeps, runImport, useImportEngines } from './import.helpers.ts';

/*
 * The oracle end to end: every family fixture, loaded into MariaDB and imported by the real import, gives channels
 * that route exactly what the gateway routes (the expected tables written by hand from its Go source), with the
 * skipped rows and reasons, each imported row's settings and the family's warnings the tables name.
 */

const { db, dynamo } = useImportEngines();

const fixture = (name: string) => readFileSync(new URL(`../fixtures/${name}.sql`, import.meta.url), 'utf8');

describe.each(ORACLES)('importing $fixture', (oracle) => {
  it(`keeps every route ${oracle.family} serves from an imported row`, async () => {
    const database = await db.createDatabase(undefined, fixture(oracle.fixture));
    const table = await dynamo.createChannelsTable();

    const result = await runImport(db.dsn(database), importDeps(dynamo, table));
    const channels = await dynamo.scan(table);

    if (!result.ok) throw result.error;
    const { report } = result;
    expect(report.source.kind).toBe(oracle.family);
    expect(routingOf(channels)).toEqual(oracle.routing);

    const items = new Map<number, ReportItem>(report.items.map((item) => [Number(item.legacyId), item]));
    const skipped = Object.fromEntries(
      [...items]
        .filter(([, item]) => item.outcome === 'skipped')
        .map(([id, item]) => [id, 'reason' in item ? item.reason : '']),
    );
    expect(skipped).toEqual(Object.fromEntries(Object.entries(oracle.skips).map(([id, r]) => [Number(id), r])));
    expect(report.rows.skipped).toBe(Object.keys(oracle.skips).length);

    for (const [id, settings] of Object.entries(oracle.settings)) {
      const rowChannels = channels.filter((c) => c.source.legacyId === Number(id));
      expect(rowChannels.length, `channels of legacy row ${id}`).toBeGreaterThan(0);
      for (const channel of rowChannels) {
        expect(channel.settings ?? {}, `settings of legacy row ${id}`).toEqual(settings);
      }
    }
    for (const [id, warnings] of Object.entries(oracle.warnings)) {
      expect(items.get(Number(id))?.warnings, `warnings of legacy row ${id}`).toEqual(
        expect.arrayContaining([...warnings]),
      );
    }
    for (const [id, keys] of Object.entries(oracle.disabledKeys ?? {})) {
      const disabled = channels.filter((c) => c.source.legacyId === Number(id) && c.status === 'disabled');
      expect(disabled.map((c) => c.key).sort()).toEqual([...keys].sort());
    }
    for (const model of oracle.lost) {
      expect(report.routes.items).toEqual(expect.arrayContaining([expect.objectContaining({ model, imported: 0 })]));
    }
  });
});
