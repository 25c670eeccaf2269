import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredChannel } from '#shared/repositories/channels';
import type { ImportReport } from '#shared/schemas/import-report';
import { freePort } from '#test/support/mariadb';
import { sqliteFixtureBytes, writeLargeSqliteFile, writeSqliteFixture } from '../support/sqlite-fixtures.ts';
import { useTempDir } from '../support/temp-dir.ts';
import { callImport, expectReport, useImportHarness } from './import-http.helpers.ts';

// docs/channel-import.md, "SQLite files": the real CLI, spawned, against the local server (real authorizer and
// import handler) on dynalite, compared with the import of the MySQL form of the same fixture through MariaDB.

const execFileAsync = promisify(execFile);
const fixture = (name: string) => readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8');
const { db, server, channels } = useImportHarness();
const dir = useTempDir('import-sqlite-');

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `npm run import:sqlite`'s script as a child process, as an operator would (minus npm's banner). */
async function cli(
  args: string[],
  env: Record<string, string> = { ADMIN_KEY: server.credentials.adminKey },
): Promise<CliRun> {
  try {
    const { stdout, stderr } = await execFileAsync(
      process.execPath,
      ['--import', 'tsx', 'scripts/import-sqlite.ts', ...args],
      {
        env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...env },
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    return { code: 0, stdout, stderr };
  } catch (e) {
    const failed = e as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

function expectNoKey(run: CliRun): void {
  expect(`${run.stdout}${run.stderr}`).not.toContain(server.credentials.adminKey);
}

/** A stored channel without what depends on where and when it was read. */
function portable(channel: StoredChannel): unknown {
  const { source, createdAt, updatedAt, ...rest } = channel as StoredChannel & Record<string, unknown>;
  return { ...rest, legacyId: (source as { legacyId?: unknown } | undefined)?.legacyId };
}

/** A report without where it was read and without the summing's own fields. */
function comparable(report: ImportReport & { calls?: unknown; exact?: unknown }): unknown {
  const { source, calls: _calls, exact: _exact, ...rest } = report;
  return { ...rest, kind: source.kind, sourceRows: source.rows };
}

const byId = (a: StoredChannel, b: StoredChannel) => a.id.localeCompare(b.id);

describe('npm run import:sqlite against the local server', () => {
  it("prints only the report's JSON on stdout when run through npm as the README writes it (npm run --silent)", async () => {
    const file = join(dir(), 'readme.db');
    await writeSqliteFixture('oneapi-channels', file);

    const { stdout } = await execFileAsync(
      'npm',
      ['run', '--silent', 'import:sqlite', '--', file, '--url', server.url, '--dry-run'],
      {
        cwd: join(import.meta.dirname, '..', '..'),
        env: { ...process.env, NO_COLOR: '1', ADMIN_KEY: server.credentials.adminKey },
        maxBuffer: 64 * 1024 * 1024,
      },
    );

    expect((JSON.parse(stdout) as ImportReport).dryRun).toBe(true);
  }, 120_000);

  it.each([
    ['One API', 'oneapi-channels'],
    ['New API', 'newapi-newest-channels'],
  ] as const)(
    'imports the %s SQLite file to exactly the channels its MySQL form gives, with the same report',
    async (_name, name) => {
      const database = await db.createDatabase(undefined, fixture(`${name}.sql`));
      const file = join(dir(), `${name}.db`);
      await writeSqliteFixture(name, file);
      await channels.clear();
      const fromMySql = expectReport(await callImport(server, { json: { dsn: db.dsn(database) } }));
      const mysqlChannels = (await channels.scan()).sort(byId);
      await channels.clear();

      const run = await cli([file, '--url', server.url]);

      expect(run.stderr).toContain(`sent ${fromMySql.source.rows} of ${fromMySql.source.rows} rows (call 1)`);
      expect(run.code).toBe(0);
      const fromSqlite = JSON.parse(run.stdout) as ImportReport;
      expect(comparable(fromSqlite)).toEqual(comparable(fromMySql));
      expect(fromSqlite.channels.created).toBeGreaterThan(0);
      const sqliteChannels = (await channels.scan()).sort(byId);
      expect(sqliteChannels.map(portable)).toEqual(mysqlChannels.map(portable));
      expectNoKey(run);
    },
    120_000,
  );

  it('changes nothing when run again, and what the MySQL import wrote counts unchanged', async () => {
    const database = await db.createDatabase(undefined, fixture('oneapi-channels.sql'));
    const file = join(dir(), 'again.db');
    await writeSqliteFixture('oneapi-channels', file);
    await channels.clear();
    const fromMySql = expectReport(await callImport(server, { json: { dsn: db.dsn(database) } }));

    const run = await cli([file, '--url', `${server.url}/`]);

    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as ImportReport;
    expect(report.channels).toEqual({ created: 0, updated: 0, unchanged: fromMySql.channels.created, edited: 0 });
  }, 120_000);

  it('writes nothing with --dry-run and reports what the import would do', async () => {
    const file = join(dir(), 'dry.db');
    await writeSqliteFixture('newapi-newest-channels', file);
    await channels.clear();

    const run = await cli([file, '--url', server.url, '--dry-run']);

    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as ImportReport;
    expect(report.dryRun).toBe(true);
    expect(report.channels.created).toBeGreaterThan(0);
    expect(await channels.scan()).toEqual([]);
    expect(run.stderr).toContain('Dry run: nothing was written.');
  }, 120_000);
});

describe('a row that cannot be sent whole', () => {
  it('is sent with its largest values as the oversize marker and skipped, and the rest of the table imports', async () => {
    // Every value within the reader's caps, but quotes double in JSON and again inside the Lambda event: the row
    // alone would be over 6 MiB of event.
    const file = join(dir(), 'hostile.db');
    const quotes = (n: number) => `printf('%.*c', ${n}, '"')`;
    const wide = ['other', 'model_mapping', 'config', 'system_prompt', 'base_url', 'models', '"group"', 'name'];
    writeFileSync(
      file,
      await sqliteFixtureBytes('oneapi-channels', (d) =>
        d.exec(
          `UPDATE channels SET "key" = ${quotes(1024 * 1024)}, ${wide.map((c) => `${c} = ${quotes(64 * 1024)}`).join(', ')} WHERE id = 2`,
        ),
      ),
    );
    const plain = join(dir(), 'plain.db');
    await writeSqliteFixture('oneapi-channels', plain);
    await channels.clear();
    const expected = JSON.parse((await cli([plain, '--url', server.url, '--dry-run'])).stdout) as ImportReport;

    const run = await cli([file, '--url', server.url, '--dry-run']);

    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as ImportReport;
    expect(report.rows).toEqual({ imported: expected.rows.imported - 1, skipped: expected.rows.skipped + 1 });
    expect(report.items).toContainEqual({ legacyId: 2, outcome: 'skipped', reason: 'key over 1 MiB' });
  }, 120_000);
});

describe('a table sent in several calls', () => {
  const ROWS = 6_000;
  let big: string;
  let flaky: Server | undefined;
  let flakyUrl: string;
  // The proxy stand-in forwards the first call to the local server and fails every later one, as a proxy whose
  // deadline passed or that went away would.
  let forwarded = 0;

  beforeAll(async () => {
    big = join(dir(), 'many.db');
    writeFileSync(
      big,
      await sqliteFixtureBytes('oneapi-channels', (d) =>
        d.exec(`WITH RECURSIVE n(i) AS (SELECT 1000 UNION ALL SELECT i + 1 FROM n WHERE i < ${999 + ROWS - 22})
                INSERT INTO channels (id, type, "key", status, name, base_url, models, "group")
                SELECT i, 1, 'sk-fixture-many-' || i, 1, 'many-' || i, '', 'gpt-4o-mini', 'default' FROM n`),
      ),
    );
    flaky = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (c: Buffer) => chunks.push(c));
      request.on('end', async () => {
        forwarded += 1;
        if (forwarded > 1) {
          response.writeHead(504, { 'content-type': 'application/json' });
          response.end(
            JSON.stringify({ success: false, message: 'The import ran out of time: 0 channels were written' }),
          );
          return;
        }
        const upstream = await fetch(`${server.url}${request.url}`, {
          method: 'POST',
          headers: { authorization: request.headers.authorization ?? '', 'content-type': 'application/json' },
          body: Buffer.concat(chunks),
        });
        response.writeHead(upstream.status, { 'content-type': 'application/json' });
        response.end(await upstream.text());
      });
    });
    await new Promise<void>((resolve) => flaky?.listen(0, '127.0.0.1', resolve));
    flakyUrl = `http://127.0.0.1:${(flaky.address() as AddressInfo).port}`;
  }, 60_000);
  afterAll(async () => {
    await new Promise((resolve) => flaky?.close(resolve));
  });

  it('sends a table of more than 5,000 rows in calls of at most 5,000, with a progress line per call', async () => {
    await channels.clear();

    const run = await cli([big, '--url', server.url, '--dry-run']);

    expect(run.code).toBe(0);
    expect(run.stderr).toContain(`checked 5,000 of ${ROWS.toLocaleString('en')} rows (call 1)`);
    expect(run.stderr).toContain(`checked ${ROWS.toLocaleString('en')} of ${ROWS.toLocaleString('en')} rows (call 2)`);
    const report = JSON.parse(run.stdout) as ImportReport & { calls: number };
    expect(report.calls).toBe(2);
    expect(report.source.rows).toBe(ROWS);
  }, 180_000);

  it('says how many calls landed when one fails mid-import, and running it again completes the import', async () => {
    await channels.clear();
    forwarded = 0;

    const broken = await cli([big, '--url', flakyUrl]);

    expect(broken.code).toBe(1);
    expect(broken.stderr.trim().split('\n').at(-1)).toBe(
      `import:sqlite: the proxy answered HTTP 504: The import ran out of time: 0 channels were written. 1 call landed (5,000 of ${ROWS.toLocaleString('en')} rows) before it; nothing is lost: run the same command again to complete the import (it is idempotent)`,
    );
    const afterFirst = (await channels.scan()).length;
    expect(afterFirst).toBeGreaterThan(4_000);

    const again = await cli([big, '--url', server.url]);

    expect(again.code).toBe(0);
    const report = JSON.parse(again.stdout) as ImportReport;
    expect(report.channels.unchanged).toBe(afterFirst);
    expect(report.channels.created + report.channels.unchanged).toBe((await channels.scan()).length);
    expectNoKey(broken);
    expectNoKey(again);
  }, 300_000);
});

describe('errors, each one line and a non-zero exit', () => {
  it('names a file that does not exist', async () => {
    const run = await cli([join(dir(), 'missing.db'), '--url', server.url]);

    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`import:sqlite: ${join(dir(), 'missing.db')}: no such file\n`);
  });

  it('refuses a file that is not SQLite', async () => {
    const file = join(dir(), 'notes.txt');
    writeFileSync(file, 'this is a text file, not a database\n'.repeat(10));

    const run = await cli([file, '--url', server.url]);

    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `import:sqlite: ${file}: The file is not a SQLite database (or it is encrypted): it does not start with the SQLite header\n`,
    );
  });

  it('refuses a SQLite file without a channels table', async () => {
    const file = join(dir(), 'other.db');
    writeFileSync(file, await sqliteFixtureBytes('oneapi-channels', (d) => d.exec('DROP TABLE channels')));

    const run = await cli([file, '--url', server.url]);

    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `import:sqlite: ${file}: The file has no \`channels\` table: it is not a One API or New API database\n`,
    );
  });

  it('refuses a truncated file', async () => {
    const file = join(dir(), 'cut.db');
    const bytes = await sqliteFixtureBytes('oneapi-channels');
    writeFileSync(file, bytes.subarray(0, bytes.length - 4096));

    const run = await cli([file, '--url', server.url]);

    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^import:sqlite: .*cut\.db: The file is truncated: its header describes [\d,]+ bytes but it holds [\d,]+/,
    );
  });

  it("passes on the proxy's message for a table of no known family", async () => {
    const file = join(dir(), 'unknown.db');
    writeFileSync(
      file,
      await sqliteFixtureBytes('oneapi-channels', (d) =>
        d.exec(
          "DROP TABLE channels; CREATE TABLE channels (id integer, name text, PRIMARY KEY (id)); INSERT INTO channels VALUES (1, 'x')",
        ),
      ),
    );

    const run = await cli([file, '--url', server.url]);

    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^import:sqlite: the proxy answered HTTP 400: .+\n$/);
    expect(run.stderr).toMatch(/column/i);
  });

  it('refuses a wrong admin key without printing it', async () => {
    const file = join(dir(), 'key.db');
    await writeSqliteFixture('oneapi-channels', file);
    const wrong = 'wrong-admin-key-0123456789abcdef0123456789';

    const run = await cli([file, '--url', server.url], { ADMIN_KEY: wrong });

    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^import:sqlite: the proxy refused the admin key \(HTTP 40[13]\): set ADMIN_KEY to this proxy's admin key\n$/,
    );
    expect(`${run.stdout}${run.stderr}`).not.toContain(wrong);
  });

  it('explains a --url that already ends in /api', async () => {
    const file = join(dir(), 'api-suffix.db');
    await writeSqliteFixture('oneapi-channels', file);

    const run = await cli([file, '--url', `${server.url}/api`]);

    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      "import:sqlite: the proxy answered HTTP 404: No such route (--url is the proxy's base URL, without /api: the CLI adds /api/channels/import/rows)\n",
    );
  });

  it('says when the proxy cannot be reached', async () => {
    const file = join(dir(), 'unreachable.db');
    await writeSqliteFixture('oneapi-channels', file);
    const port = await freePort();

    const run = await cli([file, '--url', `http://127.0.0.1:${port}`]);

    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`import:sqlite: cannot reach the proxy at http://127.0.0.1:${port}: ECONNREFUSED\n`);
  });
});

describe('a file over 200 MB', () => {
  it('imports its channels reading only the header, the schema and the channels table', async () => {
    const file = join(dir(), 'one-api-large.db');
    await writeLargeSqliteFile('oneapi-channels', file);
    await channels.clear();

    const run = await cli([file, '--url', server.url, '--dry-run']);

    expect(run.code).toBe(0);
    const read = /Read ([\d,]+) bytes of the file \(([\d,]+) bytes\)/.exec(run.stderr);
    const bytesRead = Number(read?.[1]?.replaceAll(',', ''));
    const size = Number(read?.[2]?.replaceAll(',', ''));
    expect(size).toBeGreaterThan(200 * 1024 * 1024);
    expect(bytesRead).toBeGreaterThan(0);
    expect(bytesRead).toBeLessThan(1024 * 1024);
    expect((JSON.parse(run.stdout) as ImportReport).source.rows).toBe(22);
  }, 180_000);
});
