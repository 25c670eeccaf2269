import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeMySql } from '#test/support/fake-mysql';
import { startFakePostgres } from '#test/support/fake-postgres';
import { importDeps, startTestDynamo, type TestDynamo } from './import.helpers.ts';
import { importAnswer, TOO_MUCH_AT_ONCE } from './import-hostile.helpers.ts';

// Review 5: the column query (information_schema) and the count are answered by the server too. Their answers are
// bounded like the SELECT's rows, and their errors are the import's own words, never the server's.

const COLUMNS = ['id', 'type', 'key', 'status', 'name', 'base_url', 'models', 'group'];
const MiB = 1024 * 1024;

let dynamo: TestDynamo;

beforeAll(async () => {
  dynamo = await startTestDynamo();
});

afterAll(async () => {
  await dynamo?.stop();
});

describe('a hostile MySQL server answering the metadata queries', () => {
  it.each(['columns', 'count'] as const)(
    'flooding the %s query with 600 MB of rows is refused from the packet headers: a 502, the memory flat, nothing written',
    async (query) => {
      const rows = 3_000_000;
      const fake = await startFakeMySql({ kind: 'metadata-flood', query, rows, rowBytes: 200, columns: COLUMNS });
      const table = await dynamo.createChannelsTable();
      try {
        const rssBefore = process.memoryUsage().rss;

        const { answer } = await importAnswer(`u:pw@tcp(127.0.0.1:${fake.port})/legacy`, importDeps(dynamo, table));

        expect(answer).toEqual(TOO_MUCH_AT_ONCE);
        // Without the bound the driver buffered every row (0.6-1.6 GB) until the query's 10 s timeout.
        expect(process.memoryUsage().rss - rssBefore).toBeLessThan(64 * MiB);
        expect(fake.hugeBytesWritten()).toBeLessThan(64 * MiB);
        expect(await dynamo.scan(table)).toHaveLength(0);
      } finally {
        await fake.close();
      }
    },
    60_000,
  );

  it.each(['columns', 'count'] as const)(
    "answering the %s query with an error (1142, no SELECT privilege) gets the import's own message, never the server's text, and logs no error",
    async (query) => {
      const fake = await startFakeMySql({ kind: 'metadata-error', query, errno: 1142, columns: COLUMNS });
      const table = await dynamo.createChannelsTable();
      try {
        const { answer, logged } = await importAnswer(
          `u:pw@tcp(127.0.0.1:${fake.port})/legacy`,
          importDeps(dynamo, table),
        );

        // The same words as the SELECT's 1142: the grant is the operator's to fix.
        expect(answer).toEqual({
          status: 400,
          body: { success: false, message: 'The MySQL user may not read the channels table' },
        });
        expect(logged).not.toContain('10.1.2.3');
        expect(logged).not.toMatch(/"level":"ERROR"/);
      } finally {
        await fake.close();
      }
    },
  );
});

describe('a hostile PostgreSQL server answering the column query', () => {
  it('flooding it with 600 MB of rows is refused once past its bound: a 502, the memory flat, nothing written', async () => {
    const fake = await startFakePostgres({ kind: 'metadata-flood', rows: 3_000_000, rowBytes: 200 });
    const table = await dynamo.createChannelsTable();
    try {
      const rssBefore = process.memoryUsage().rss;

      const dsn = `postgres://u:pw@127.0.0.1:${fake.port}/legacy?sslmode=disable`;
      const { answer } = await importAnswer(dsn, importDeps(dynamo, table));

      expect(answer).toEqual({
        status: 502,
        body: {
          success: false,
          message: 'Could not read from the PostgreSQL server: it sent more data at once than the import accepts',
        },
      });
      expect(process.memoryUsage().rss - rssBefore).toBeLessThan(64 * MiB);
      expect(fake.hugeBytesWritten()).toBeLessThan(64 * MiB);
      expect(await dynamo.scan(table)).toHaveLength(0);
    } finally {
      await fake.close();
    }
  }, 60_000);
});
