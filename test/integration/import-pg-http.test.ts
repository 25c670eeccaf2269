import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ImportReport } from '#functions/import-legacygw/report';
import type { StoredChannel } from '#shared/repositories/channels';
import { startFakePostgres } from '#test/support/fake-postgres';
import { startedInBeforeAll } from '#test/support/local-server';
import { freePort } from '#test/support/mariadb';
import { startPostgres, type TestPostgres } from '#test/support/postgres';
import { type Exchange, expectError, expectNoSecrets, expectReport, useImportHarness } from './import-http.helpers.ts';

// docs/channel-import.md, "PostgreSQL", through HTTP: the local server runs the real authorizer and import handler.

const fixture = (name: string) => readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8');
const { db, server, channels, callImport } = useImportHarness();
let pgServer: TestPostgres | undefined;
beforeAll(async () => {
  pgServer = await startPostgres();
});
afterAll(async () => {
  await pgServer?.stop();
});
const pg = startedInBeforeAll(() => pgServer, 'the PostgreSQL server');

const secretsOf = (extra: readonly string[] = []) => ({
  server,
  mysqlPassword: db.password,
  extra: [pg.password, encodeURIComponent(pg.password), ...extra],
});

/** A stored channel without what depends on where and when it was read. */
function portable(channel: StoredChannel): unknown {
  const { source, createdAt, updatedAt, ...rest } = channel as StoredChannel & Record<string, unknown>;
  return { ...rest, legacyId: (source as { legacyId?: unknown } | undefined)?.legacyId };
}

/** A report without its `source` (host, port, database: where it was read). */
function withoutSource(report: ImportReport): unknown {
  const { source, ...rest } = report;
  return { ...rest, kind: source.kind, sourceRows: source.rows };
}

describe('importing the same gateway from MySQL and from PostgreSQL', () => {
  it.each([
    ['the One API fixture', 'legacygw-channels.sql', 'legacygw-channels.pg.sql'],
    ['the New API fixture', 'newapi-channels.sql', 'newapi-channels.pg.sql'],
  ])('gives the same channels and the same report apart from its source (%s)', async (_name, mysqlFile, pgFile) => {
    const mysqlDatabase = await db.createDatabase(undefined, fixture(mysqlFile));
    const pgDatabase = await pg.createDatabase(undefined, fixture(pgFile));
    await channels.clear();

    const fromMySql = await callImport({ json: { dsn: db.dsn(mysqlDatabase) } });
    const mysqlChannels = await channels.scan();
    await channels.clear();
    const fromPostgres = await callImport({ json: { dsn: pg.dsn(pgDatabase) } });
    const pgChannels = await channels.scan();

    const mysqlReport = expectReport(fromMySql);
    const pgReport = expectReport(fromPostgres);
    expect(pgReport.source).toMatchObject({ host: pg.host, port: pg.port, database: pgDatabase });
    expect(withoutSource(pgReport)).toEqual(withoutSource(mysqlReport));
    expect(pgChannels.length).toBeGreaterThan(0);
    expect(pgChannels.map(portable)).toEqual(mysqlChannels.map(portable));
    expectNoSecrets([fromMySql, fromPostgres], secretsOf());
  });

  it('re-importing from PostgreSQL what MySQL imported changes nothing', async () => {
    const mysqlDatabase = await db.createDatabase(undefined, fixture('legacygw-channels.sql'));
    const pgDatabase = await pg.createDatabase(undefined, fixture('legacygw-channels.pg.sql'));
    await channels.clear();
    const first = await callImport({ json: { dsn: db.dsn(mysqlDatabase) } });
    expect(first.status).toBe(200);

    const second = await callImport({ json: { dsn: pg.dsn(pgDatabase) } });

    const report = expectReport(second);
    expect(report.channels).toMatchObject({ created: 0, updated: 0 });
    expect(report.channels.unchanged).toBe(expectReport(first).channels.created);
  });
});

describe('hostile input on the PostgreSQL path (never a 500, never the password)', () => {
  const hostile: Exchange[] = [];
  afterAll(() => {
    // Every exchange of this block, checked once more together.
    if (hostile.length > 0) expectNoSecrets(hostile, secretsOf());
  });
  const call = async (dsn: string) => {
    const reply = await callImport({ json: { dsn, dryRun: true } });
    hostile.push(reply);
    expect(reply.status).not.toBe(500);
    return reply;
  };

  it.each([
    ['the metadata address', '169.254.169.254'],
    ['its IPv4-mapped form', '[::ffff:169.254.169.254]'],
    ['its NAT64 form', '[64:ff9b::a9fe:a9fe]'],
    ['a link-local IPv6 address', '[fe80::1]'],
  ])('refuses %s as the host with a 400', async (_name, host) => {
    const reply = await call(`postgres://app:${encodeURIComponent(pg.password)}@${host}:5432/legacy`);

    expectError(reply, 400, /link-local/);
  });

  it.each([
    ['options', 'options=-c%20default_transaction_read_only%3Doff'],
    ['sslrootcert', 'sslrootcert=/etc/passwd'],
    ['host', 'host=169.254.169.254'],
    ['hostaddr', 'hostaddr=169.254.169.254'],
    ['application_name', 'application_name=x'],
    ['sslmode given twice', 'sslmode=require&sslmode=disable'],
  ])('refuses a smuggled parameter (%s) with a 400 naming it', async (name, params) => {
    const reply = await call(pg.dsn('legacy', { params }));

    expectError(reply, 400, new RegExp(name.split(' ')[0] ?? name));
  });

  it('cuts off a server that never answers at the DSN connect timeout (502)', async () => {
    const fake = await startFakePostgres({ kind: 'silent' });
    try {
      const reply = await call(`postgres://app:pw@127.0.0.1:${fake.port}/legacy?connect_timeout=1`);

      expectError(reply, 502, /timed out/);
    } finally {
      await fake.close();
    }
  });

  it('refuses a server that asks for the password in clear text (502) and never sends it', async () => {
    const fake = await startFakePostgres({ kind: 'cleartext-password' });
    try {
      const reply = await call(`postgres://app:${encodeURIComponent(pg.password)}@127.0.0.1:${fake.port}/legacy`);

      expectError(reply, 502, /password in clear text/);
      expect(fake.clientData().includes(pg.password)).toBe(false);
    } finally {
      await fake.close();
    }
  });

  it('skips a row with a field over its limit (checked in SQL) and imports the rest', async () => {
    const database = await pg.createDatabase(undefined, fixture('legacygw-channels.pg.sql'));
    await pg.query(database, `UPDATE channels SET "key" = repeat('k', 2 * 1024 * 1024) WHERE id = 1`);

    const reply = await call(pg.dsn(database));

    const report = expectReport(reply);
    expect(report.source.rows).toBe(20);
    expect(report.items).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ legacyId: 1, outcome: 'skipped', reason: expect.stringMatching(/key/) }),
      ]),
    );
  });

  it('answers a wrong password with a 400 that does not repeat it', async () => {
    const database = await pg.createDatabase(undefined, fixture('legacygw-channels.pg.sql'));
    const wrong = 'wrong-password-that-must-not-leak-0123';

    const reply = await call(pg.dsn(database, { password: wrong }));

    expectError(reply, 400, /denied access/);
    expectNoSecrets([reply], secretsOf([wrong]));
  });

  it('answers an unreachable port with a 502', async () => {
    const reply = await call(pg.dsn('legacy', { port: await freePort() }));

    expectError(reply, 502, /refused/);
  });
});
