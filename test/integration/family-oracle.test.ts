import { readFileSync } from 'node:fs';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDsn } from '#functions/import-legacygw/dsn';
import type { ColumnSpec, RowValues } from '#functions/import-legacygw/families/family';
import { FAMILIES } from '#functions/import-legacygw/families/index';
import { CORE_COLUMNS } from '#functions/import-legacygw/limits';
import { openPgSource } from '#functions/import-legacygw/pg-source';
import { mapRows } from '#test/support/family-mapping';
import { routingOf } from '#test/support/family-routing';
import { startMariaDb, type TestMariaDb } from '#test/support/mariadb';
import { startPostgres, type TestPostgres } from '#test/support/postgres';
import { ORACLES } from './family-oracles.ts';

/*
 * The oracle of every family: each fixture, loaded into MariaDB and into PostgreSQL in GORM's
 * form for each, read through its family's functions, must route exactly what the gateway routes (the expected
 * tables, written by hand from the gateway's Go source). The rows are read as a source hands them over (the core's
 * columns and the family's, integers as text); the mapping around the family (type table, base URL default, status,
 * models) is this file's own minimal one, so the family's rules are checked on real engines without the import core.
 */

const fixture = (name: string) => readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8');

interface Table {
  readonly columns: ReadonlySet<string>;
  read(select: readonly ColumnSpec[]): Promise<RowValues[]>;
}

let maria: TestMariaDb;
let postgres: TestPostgres;
beforeAll(async () => {
  [maria, postgres] = await Promise.all([startMariaDb(), startPostgres()]);
});
afterAll(async () => {
  await Promise.all([maria?.stop(), postgres?.stop()]);
});

/** A connection to `database` as the importer user, every value as the text the server sends (as a source hands it over). */
const connect = (database: string) =>
  mysql.createConnection({
    host: maria.host,
    port: maria.port,
    user: maria.user,
    password: maria.password,
    database,
    typeCast: (field, next) => (field.type === 'GEOMETRY' ? next() : field.string('utf8')),
  });

async function mysqlTable(name: string): Promise<Table> {
  const database = await maria.createDatabase(undefined, fixture(`${name}.sql`));
  const connection = await connect(database);
  try {
    const [described] = await connection.query('SHOW COLUMNS FROM `channels`');
    const columns = new Set((described as { Field: string }[]).map((c) => c.Field.toLowerCase()));
    return {
      columns,
      async read(select) {
        const reader = await connect(database);
        try {
          const list = select.map((c) => `\`${c.name}\``).join(', ');
          const [rows] = await reader.query(`SELECT ${list} FROM \`channels\` ORDER BY \`id\``);
          return rows as RowValues[];
        } finally {
          await reader.end();
        }
      },
    };
  } finally {
    await connection.end();
  }
}

async function postgresTable(name: string): Promise<Table> {
  const database = await postgres.createDatabase(undefined, fixture(`${name}.pg.sql`));
  const dsn = parseDsn(postgres.dsn(database, { params: 'sslmode=disable' }));
  if (dsn.engine !== 'postgres') throw new Error('expected a PostgreSQL DSN');
  const limits = { signal: new AbortController().signal, deadlineAt: Date.now() + 30_000, now: () => Date.now() };
  const source = await openPgSource(dsn, { address: '127.0.0.1', family: 4 }, limits);
  const columns = await source.columns();
  return {
    columns,
    async read(select) {
      try {
        const rows: RowValues[] = [];
        for await (const row of source.rows([...select], 10_000)) {
          expect(row.oversize).toEqual([]);
          rows.push(row.values);
        }
        return rows;
      } finally {
        await source.close();
      }
    },
  };
}

const IDENTICAL = /^identical to legacy channel (\d+)$/;

describe.each(ORACLES)('$fixture: what $family routes', (oracle) => {
  const family = FAMILIES.find((f) => f.kind === oracle.family)!;

  it.each(['MariaDB', 'PostgreSQL'] as const)('is what its family reads from the %s form', async (engine) => {
    const table = engine === 'MariaDB' ? await mysqlTable(oracle.fixture) : await postgresTable(oracle.fixture);

    const matched = FAMILIES.filter((f) => f.match(table.columns) !== undefined).map((f) => f.kind);
    const select = [...CORE_COLUMNS, ...family.columns].filter(
      (c, i, all) => table.columns.has(c.name) && all.findIndex((d) => d.name === c.name) === i,
    );
    const outcome = mapRows(family, await table.read(select));

    expect(matched).toEqual([oracle.family]);
    expect(routingOf(outcome.channels)).toEqual(oracle.routing);

    // The core collapses a row identical to an earlier one; the family must read both alike for that to happen.
    const familySkips = Object.fromEntries(
      Object.entries(oracle.skips).filter(([, reason]) => !IDENTICAL.test(reason)),
    );
    expect(outcome.skips).toEqual(familySkips);
    for (const [id, reason] of Object.entries(oracle.skips)) {
      const twin = IDENTICAL.exec(reason)?.[1];
      if (twin === undefined) continue;
      const strip = (legacyId: number) =>
        outcome.channels.filter((c) => c.legacyId === legacyId).map(({ legacyId: _, ...channel }) => channel);
      expect(strip(Number(id))).toEqual(strip(Number(twin)));
      expect(outcome.settings[Number(id)]).toEqual(outcome.settings[Number(twin)]);
    }

    const importedSettings = Object.fromEntries(
      Object.entries(outcome.settings).filter(([id]) => !IDENTICAL.test(oracle.skips[Number(id)] ?? '')),
    );
    expect(importedSettings).toEqual(oracle.settings);
    expect(outcome.warnings).toEqual(oracle.warnings);

    for (const [id, keys] of Object.entries(oracle.disabledKeys ?? {})) {
      const disabled = outcome.channels.filter((c) => c.legacyId === Number(id) && c.status === 'disabled');
      expect(disabled.map((c) => c.key)).toEqual(keys);
    }

    // Lost routes: served only by skipped rows, so absent from what is imported.
    const skippedModels = Object.keys(oracle.skips).flatMap((id) => outcome.models[Number(id)] ?? []);
    for (const model of oracle.lost) {
      expect(skippedModels).toContain(model);
      expect(Object.keys(routingOf(outcome.channels))).not.toContain(model);
    }
  });
});
