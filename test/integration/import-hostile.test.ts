import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { proxyErrorResponse } from '#shared/envelopes/proxy';
import { DeadlineExceededError } from '#shared/errors';
import { CLIENT_LOCAL_FILES, startFakeMySql, startStallingProxy } from '#test/support/fake-mysql';
import { startMariaDb, type TestMariaDb } from '#test/support/mariadb';
import { FIXTURE_SQL, importDeps, runImport, startTestDynamo, type TestDynamo, testLogger } from './import.helpers.ts';
import { importAnswer, TOO_MUCH_AT_ONCE } from './import-hostile.helpers.ts';

let db: TestMariaDb;
let dynamo: TestDynamo;
let dir: string;

beforeAll(async () => {
  [db, dynamo, dir] = await Promise.all([
    startMariaDb(),
    startTestDynamo(),
    mkdtemp(join(tmpdir(), 'import-hostile-')),
  ]);
});

afterAll(async () => {
  await Promise.all([db?.stop(), dynamo?.stop(), dir && rm(dir, { recursive: true, force: true })]);
});

describe('a hostile MySQL server', () => {
  it('asking for a local file gets an empty answer, never the file, and the import fails with a generic 500', async () => {
    const secretFile = join(dir, 'secret.txt');
    const marker = 'FILE-CONTENT-THAT-MUST-NOT-LEAVE-0123456789';
    await writeFile(secretFile, `${marker}\n`.repeat(50));
    const fake = await startFakeMySql({ kind: 'local-infile', path: secretFile });
    const table = await dynamo.createChannelsTable();
    try {
      const { answer, logged } = await importAnswer(
        `u:pw@tcp(127.0.0.1:${fake.port})/legacy`,
        importDeps(dynamo, table),
      );

      expect(fake.clientFlags).toHaveLength(1);
      expect(fake.clientFlags[0]! & CLIENT_LOCAL_FILES).toBe(0);
      expect(fake.afterFileRequest).toEqual([Buffer.alloc(0)]);
      expect(answer).toEqual({ status: 500, body: { success: false, message: 'Internal error' } });
      // The driver's message names the requested path; only codes of it reach the log.
      expect(logged).toContain('Unexpected error while reading the legacy database');
      expect(logged).not.toContain(secretFile);
      expect(logged).not.toContain(marker);
    } finally {
      await fake.close();
    }
  });

  it('asking for the password in clear text (mysql_clear_password) gets nothing and the import is a 502', async () => {
    const password = 'clear-text-password-that-must-not-cross-0123';
    const fake = await startFakeMySql({ kind: 'clear-password' });
    const table = await dynamo.createChannelsTable();
    try {
      const dsn = `u:${password}@tcp(127.0.0.1:${fake.port})/legacy`;
      const { answer, logged } = await importAnswer(dsn, importDeps(dynamo, table));

      expect(answer).toEqual({
        status: 502,
        body: { success: false, message: expect.stringMatching(/asked for the password in clear text/) },
      });
      // The handshake response went out (with a hashed password); nothing followed the switch request.
      expect(fake.clientPayloads).toHaveLength(1);
      expect(Buffer.concat(fake.clientPayloads).includes(password)).toBe(false);
      expect(logged).not.toContain(password);
    } finally {
      await fake.close();
    }
  });

  it('that accepts the connection and never speaks is cut off by the DSN connect timeout (502)', async () => {
    const fake = await startFakeMySql({ kind: 'silent' });
    const table = await dynamo.createChannelsTable();
    try {
      // The deadline is far away: a 504 here would mean the connect timeout did not fire.
      const result = await runImport(
        `u:pw@tcp(127.0.0.1:${fake.port})/legacy?timeout=1s`,
        importDeps(dynamo, table, { deadlineMs: 60_000 }),
      );

      expect(!result.ok && [result.error.httpStatus, result.error.message]).toEqual([
        502,
        expect.stringMatching(/timed out/),
      ]);
    } finally {
      await fake.close();
    }
  });

  it('that stops answering mid-result is cut off at the deadline (504 with the written count); a re-run completes', async () => {
    const rows = 500;
    const database = await db.createDatabase(undefined, FIXTURE_SQL);
    await db.query(
      `TRUNCATE \`${database}\`.channels; INSERT INTO \`${database}\`.channels (id, type, \`key\`, status, name, base_url, models)
       SELECT seq, 1, CONCAT('sk-stall-', seq), 1, CONCAT('stall-', seq), '', 'gpt-4o,gpt-4o-mini' FROM seq_1_to_${rows}`,
    );
    const table = await dynamo.createChannelsTable();
    const proxy = await startStallingProxy(db.port);
    const throughProxy = `${db.user}:${db.password}@tcp(127.0.0.1:${proxy.port})/${database}`;
    try {
      // A dry run measures how many bytes the whole exchange takes; the next connection gets 60% of them.
      const measure = await runImport(throughProxy, importDeps(dynamo, table), true);
      expect(measure.ok).toBe(true);
      proxy.stallAfter(Math.floor((proxy.serverBytes[0] ?? 0) * 0.6));

      const stalled = await runImport(throughProxy, importDeps(dynamo, table, { deadlineMs: 3_000 }));

      expect(stalled.ok).toBe(false);
      const error = !stalled.ok ? stalled.error : undefined;
      expect(error).toBeInstanceOf(DeadlineExceededError);
      const written = (error as DeadlineExceededError).written;
      expect(written).toBeGreaterThan(0);
      expect(written).toBeLessThan(rows);
      const response = proxyErrorResponse(error, testLogger());
      expect(response.statusCode).toBe(504);
      expect(JSON.parse(response.body).message).toContain(`${written} channel(s) were written`);
      expect(await dynamo.scan(table)).toHaveLength(written);
      // The importer destroyed its connection: the proxy sees both of its sockets closed.
      await vi.waitFor(() => expect(proxy.openSockets()).toBe(0));
      // The driver's own query timer (deadline + 1 s) fires after the import gave up; vitest fails the
      // file if that late timeout escapes as an uncaught error.
      await new Promise((resolve) => setTimeout(resolve, 1_500));

      const rerun = await runImport(db.dsn(database), importDeps(dynamo, table));

      expect(rerun.ok && rerun.report.channels).toEqual({
        created: rows - written,
        updated: 0,
        unchanged: written,
        edited: 0,
      });
      expect(await dynamo.scan(table)).toHaveLength(rows);
    } finally {
      await proxy.close();
    }
  });

  it('listing positions that name no bounded column as over their limit changes nothing: only a real position skips a row', async () => {
    const columns = ['id', 'type', 'key', 'status', 'name', 'base_url', 'models', 'group', 'config'];
    const values: Record<string, string> = {
      type: '1',
      key: 'sk-hostile-over-column-0123456789',
      status: '1',
      name: 'hostile',
      base_url: '',
      models: 'gpt-4o',
      group: 'default',
      config: '',
    };
    const fake = await startFakeMySql({
      kind: 'rows',
      columns,
      count: 2,
      row: (names, index) =>
        names.map((name) => {
          if (name === 'id') return String(index + 1);
          if (name !== '__over') return name === 'key' ? `${values.key}-${index}` : (values[name] ?? '');
          // Row 1: garbage, an integer column's position and out-of-range positions. Row 2: the key's position too.
          const garbage = `abc,,-1,999,${names.indexOf('id')},1e3`;
          return index === 0 ? garbage : `${garbage},${names.indexOf('key')}`;
        }),
    });
    const table = await dynamo.createChannelsTable();
    try {
      const result = await runImport(`u:pw@tcp(127.0.0.1:${fake.port})/legacy`, importDeps(dynamo, table));

      expect(result.ok && result.report.rows).toEqual({ imported: 1, skipped: 1 });
      expect(result.ok && result.report.items).toEqual([{ legacyId: 2, outcome: 'skipped', reason: 'key over 1 MiB' }]);
      expect(await dynamo.scan(table)).toHaveLength(1);
    } finally {
      await fake.close();
    }
  });

  it('sending a 300 MB field is refused from its packet headers: a 502, nothing written, the field never buffered', async () => {
    const bytes = 300 * 1024 * 1024;
    const fake = await startFakeMySql({
      kind: 'huge-row',
      bytes,
      columns: ['id', 'type', 'key', 'status', 'name', 'base_url', 'models', 'group', 'config'],
    });
    const table = await dynamo.createChannelsTable();
    try {
      const rssBefore = process.memoryUsage().rss;

      const { answer } = await importAnswer(`u:pw@tcp(127.0.0.1:${fake.port})/legacy`, importDeps(dynamo, table));

      expect(answer).toEqual(TOO_MUCH_AT_ONCE);
      // mysql2 alone buffers the whole 300 MB chain before parsing it; the guard stops at the first 16 MiB header.
      expect(process.memoryUsage().rss - rssBefore).toBeLessThan(64 * 1024 * 1024);
      expect(fake.hugeBytesWritten()).toBeLessThan(bytes / 4);
      expect(await dynamo.scan(table)).toHaveLength(0);
    } finally {
      await fake.close();
    }
  });
});
