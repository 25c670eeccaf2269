import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startedInBeforeAll } from '#test/support/local-server';
import { startPostgres, type TestPostgres } from '#test/support/postgres';
import { callImport, expectError, expectReport, useImportHarness } from './import-http.helpers.ts';

// docs/channel-import.md, "PostgreSQL" and "DSN errors that say what to do", against a PostgreSQL as installed:
// `trust` auth over TCP (what a development server often has), no TLS (a fresh initdb's default).

const fixture = readFileSync(new URL('../fixtures/legacygw-channels.pg.sql', import.meta.url), 'utf8');
const { server } = useImportHarness();
let started: TestPostgres | undefined;
beforeAll(async () => {
  started = await startPostgres({ hba: ['host all all 127.0.0.1/32 trust'] });
});
afterAll(async () => {
  await started?.stop();
});
const pg = startedInBeforeAll(() => started, 'the PostgreSQL server');

/** The query string of each `postgres://` example in a document (README, docs, the console's hint). */
function exampleParams(path: string): string[] {
  const text = readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
  return [...text.matchAll(/postgres:\/\/[^\s"'<]+@(?:127\.0\.0\.1|db\.internal)[^\s"'<]*/g)].map((m) =>
    new URL(m[0].replace(/\)$/, '')).search.slice(1),
  );
}

describe('the PostgreSQL examples of the README and the console', () => {
  it.each([
    ['README.md', 'README.md'],
    ["the console's hint", 'functions/console/page/index.html'],
  ])('work as written against a stock local server: %s', async (_, path) => {
    const database = await pg.createDatabase(undefined, fixture);
    const examples = exampleParams(path);
    expect(examples.length).toBeGreaterThan(0);

    for (const params of examples) {
      const reply = await callImport(server, { json: { dsn: pg.dsn(database, { params }), dryRun: true } });

      expect(expectReport(reply).source.rows).toBeGreaterThan(0);
    }
  });
});

describe('PostgreSQL authentication errors', () => {
  it('names a role that does not exist as such, without blaming TLS', async () => {
    const reply = await callImport(server, {
      json: { dsn: pg.dsn('postgres', { user: 'no_such_role_here', password: 'x' }), dryRun: true },
    });

    expectError(reply, 400, /^The PostgreSQL server has no role named as the DSN's user: check the user name/);
    expect((reply.body as { message: string }).message).not.toMatch(/TLS|sslmode|no_such_role_here/);
  });
});

describe('a MySQL DSN at a PostgreSQL server', () => {
  it('says the server does not speak MySQL and suggests a postgres:// DSN, within seconds', async () => {
    const started = Date.now();

    const reply = await callImport(server, {
      json: { dsn: `${pg.user}:x@tcp(${pg.host}:${pg.port})/oneapi`, dryRun: true },
    });

    expectError(reply, 400, /does not speak MySQL .*write a postgres:\/\/ DSN for a PostgreSQL server/);
    expect(Date.now() - started).toBeLessThan(8_000);
  });
});
