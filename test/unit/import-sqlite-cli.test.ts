import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ImportReport } from '#shared/schemas/import-report';
import { rowsEndpoint, runImportSqliteCli, summary } from '../../scripts/import-sqlite/cli.ts';
import { sqliteFixtureBytes } from '../support/sqlite-fixtures.ts';
import { useTempDir } from '../support/temp-dir.ts';

// The CLI's own logic with a fake proxy (fetch); test/integration/import-sqlite-cli.test.ts runs it against the real one.

const ADMIN_KEY = 'admin-key-that-must-never-be-printed-0123456789';

function report(overrides: Partial<ImportReport> = {}): ImportReport {
  return {
    dryRun: false,
    source: { host: '', port: 0, database: '', rows: 22, kind: 'oneapi' },
    rows: { imported: 20, skipped: 2 },
    channels: { created: 21, updated: 0, unchanged: 0, edited: 0 },
    items: [{ legacyId: 19, outcome: 'skipped', reason: 'unknown legacy channel type 999' }],
    itemsTruncated: false,
    routes: {
      total: 3,
      kept: 2,
      changed: 0,
      lost: 1,
      items: [{ group: 'default', model: 'm-x', legacy: 1, imported: 0 }],
      itemsTruncated: false,
      complete: true,
    },
    ...overrides,
  };
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  calls: {
    url: string;
    body: { columns: string[]; rows: unknown[][]; dryRun?: boolean; family?: string; file?: string };
    authorization: string;
  }[];
}

async function run(
  args: string[],
  answer: (call: number) => Response | Promise<Response>,
  env: Record<string, string | undefined> = { ADMIN_KEY },
): Promise<Run> {
  const out: string[] = [];
  const err: string[] = [];
  const calls: Run['calls'] = [];
  const code = await runImportSqliteCli(args, {
    stdout: (line) => out.push(line),
    stderr: (line) => err.push(line),
    env,
    sleep: async () => {},
    fetch: async (url, init) => {
      const headers = new Headers(init?.headers);
      calls.push({
        url: String(url),
        body: JSON.parse(String(init?.body)),
        authorization: headers.get('authorization') ?? '',
      });
      return answer(calls.length);
    },
  });
  return { code, stdout: out.join('\n'), stderr: err.join('\n'), calls };
}

const ok = (data: ImportReport = report()) => Response.json({ success: true, data });

const dir = useTempDir('import-sqlite-cli-');
let file: string;
beforeAll(async () => {
  file = join(dir(), 'one-api.db');
  writeFileSync(file, await sqliteFixtureBytes('oneapi-channels'));
});

/** A One API file of 5,023 rows: two calls. */
async function manyRows(): Promise<string> {
  const many = join(dir(), 'many.db');
  writeFileSync(
    many,
    await sqliteFixtureBytes('oneapi-channels', (d) =>
      d.exec(`WITH RECURSIVE n(i) AS (SELECT 1000 UNION ALL SELECT i + 1 FROM n WHERE i < 6000)
              INSERT INTO channels (id, type, "key", status, models) SELECT i, 1, 'sk-many-' || i, 1, 'gpt-4o' FROM n`),
    ),
  );
  return many;
}

describe('npm run import:sqlite (with a fake proxy)', () => {
  it('sends the table to <url>/api/channels/import/rows with the admin key and prints the report', async () => {
    const result = await run([file, '--url', 'http://proxy.test:3000/'], () => ok());

    expect(result.code).toBe(0);
    expect(result.calls).toHaveLength(1);
    expect(result.calls[0]?.url).toBe('http://proxy.test:3000/api/channels/import/rows');
    expect(result.calls[0]?.authorization).toBe(`Bearer ${ADMIN_KEY}`);
    expect(result.calls[0]?.body.rows).toHaveLength(22);
    expect(result.calls[0]?.body.dryRun).toBe(false);
    expect(JSON.parse(result.stdout)).toMatchObject({ channels: { created: 21 }, calls: 1 });
    expect(result.stderr).toContain('sent 22 of 22 rows (call 1)');
    // Lost routes come first in the summary.
    expect(result.stderr.split('\n')[1]).toBe('1 route has no channel after this import: m-x (default).');
    expect(result.stderr).toContain('skipped row 19: unknown legacy channel type 999');
    expect(`${result.stdout}${result.stderr}`).not.toContain(ADMIN_KEY);
  });

  it('sends dryRun with --dry-run and says that nothing was written', async () => {
    const result = await run([file, '--dry-run', `--url=http://proxy.test/prod`], () => ok(report({ dryRun: true })));

    expect(result.code).toBe(0);
    expect(result.calls[0]?.url).toBe('http://proxy.test/prod/api/channels/import/rows');
    expect(result.calls[0]?.body.dryRun).toBe(true);
    expect(result.stderr).toContain('Dry run: nothing was written.');
    expect(result.stderr).toContain('checked 22 of 22 rows');
  });

  it('waits and tries a throttled call again', async () => {
    const result = await run([file, '--url', 'http://proxy.test'], (call) =>
      call < 3 ? Response.json({ success: false, message: 'Too Many Requests' }, { status: 429 }) : ok(),
    );

    expect(result.code).toBe(0);
    expect(result.calls).toHaveLength(3);
  });

  it('gives up on a proxy that stays throttled, with one line', async () => {
    const result = await run([file, '--url', 'http://proxy.test'], () =>
      Response.json({ success: false, message: 'Too Many Requests' }, { status: 429 }),
    );

    expect(result.code).toBe(1);
    expect(result.stderr).toBe('import:sqlite: the proxy answered HTTP 429: Too Many Requests');
  });

  it('explains a 404 (a --url that already ends in /api)', async () => {
    const result = await run([file, '--url', 'http://proxy.test/api'], () =>
      Response.json({ success: false, message: 'No such route' }, { status: 404 }),
    );

    expect(result.code).toBe(1);
    expect(result.calls[0]?.url).toBe('http://proxy.test/api/api/channels/import/rows');
    expect(result.stderr).toBe(
      "import:sqlite: the proxy answered HTTP 404: No such route (--url is the proxy's base URL, without /api: the CLI adds /api/channels/import/rows)",
    );
  });

  it('explains a 200 that carries no import report (a --url that is not the channel proxy)', async () => {
    const result = await run([file, '--url', 'http://proxy.test'], () => new Response('<html>hello</html>'));

    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'import:sqlite: the proxy answered HTTP 200 without an import report: is --url the channel proxy API?',
    );
  });

  it('says how many calls landed when the key is refused mid-import, and that running it again completes it', async () => {
    const many = await manyRows();

    const result = await run([many, '--url', 'http://proxy.test'], (call) =>
      call === 1 ? ok() : Response.json({ success: false, message: 'Unauthorized' }, { status: 401 }),
    );

    expect(result.code).toBe(1);
    expect(result.calls.map((c) => c.body.rows.length)).toEqual([5_000, 23]);
    expect(result.stderr.split('\n').at(-1)).toBe(
      "import:sqlite: the proxy refused the admin key (HTTP 401): set ADMIN_KEY to this proxy's admin key. 1 call landed (5,000 of 5,023 rows) before it; nothing is lost: run the same command again to complete the import (it is idempotent)",
    );
    expect(result.stdout).toBe('');
  });

  it('says which rows were not imported when a later call is refused for good (a 400), not to run it again', async () => {
    const many = await manyRows();

    const result = await run([many, '--url', 'http://proxy.test'], (call) =>
      call === 1
        ? ok()
        : Response.json({ success: false, message: 'rows[3][2]: a value must be text' }, { status: 400 }),
    );

    expect(result.code).toBe(1);
    expect(result.stderr.split('\n').at(-1)).toBe(
      'import:sqlite: the proxy answered HTTP 400: rows[3][2]: a value must be text. 1 call landed (5,000 of 5,023 rows) before it; the rows after row 5,000 were not imported',
    );
  });

  it('says that nothing was written when a dry run fails mid-way', async () => {
    const many = await manyRows();

    const result = await run([many, '--url', 'http://proxy.test', '--dry-run'], (call) =>
      call === 1 ? ok(report({ dryRun: true })) : new Response('bad gateway', { status: 502 }),
    );

    expect(result.code).toBe(1);
    expect(result.stderr.split('\n').at(-1)).toBe(
      'import:sqlite: the proxy answered HTTP 502. 1 dry-run call answered (5,000 of 5,023 rows) before it; nothing was written: run the same command again',
    );
  });

  it.each([
    [['--url', 'http://proxy.test'], 'no file given'],
    [[], 'no file given'],
    [['x.db'], 'no --url given'],
    [['x.db', '--url'], '--url needs a value'],
    [['x.db', '--url', 'ftp://proxy.test'], '--url must be an http:// or https:// URL (got ftp:)'],
    [['x.db', '--url', 'not a url'], '--url is not a URL: not a url'],
    [['x.db', '--url', 'http://u:p@proxy.test'], '--url must not carry credentials'],
    [['x.db', 'y.db', '--url', 'http://proxy.test'], 'one file at a time (got x.db and y.db)'],
    [['x.db', '--url', 'http://proxy.test', '--force'], 'unknown option --force'],
    [
      ['x.db', '--url', 'http://proxy.test', `--key=${ADMIN_KEY}`],
      'the admin key is read from ADMIN_KEY only, never from an argument',
    ],
  ])('refuses the arguments %j with exit code 2', async (args, message) => {
    const result = await run(args, () => ok());

    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe(`import:sqlite: ${message}`);
    expect(result.calls).toHaveLength(0);
    expect(result.stderr).not.toContain(ADMIN_KEY);
  });

  it('refuses to run without ADMIN_KEY, before reading the file', async () => {
    const result = await run([file, '--url', 'http://proxy.test'], () => ok(), {});

    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^import:sqlite: set ADMIN_KEY to the proxy's admin key/);
    expect(result.calls).toHaveLength(0);
  });

  it('prints the usage with --help', async () => {
    const result = await run(['--help'], () => ok());

    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^usage: npm run --silent import:sqlite -- <file.db> --url <proxy_url> \[--dry-run\] \[--family /,
    );
  });
});

describe('the proxy endpoint', () => {
  it.each([
    ['http://127.0.0.1:3000', 'http://127.0.0.1:3000/api/channels/import/rows'],
    [
      'https://abc.execute-api.eu-west-1.amazonaws.com/prod/',
      'https://abc.execute-api.eu-west-1.amazonaws.com/prod/api/channels/import/rows',
    ],
    ['http://proxy.test/base?x=1#y', 'http://proxy.test/base/api/channels/import/rows'],
  ])('is %s + /api/channels/import/rows', (url, endpoint) => {
    expect(rowsEndpoint(new URL(url))).toBe(endpoint);
  });
});

describe('the summary', () => {
  it('says so when no route is lost, and names what the import would do in a dry run', () => {
    const lines = summary({
      ...report({
        dryRun: true,
        routes: { total: 2, kept: 2, changed: 0, lost: 0, items: [], itemsTruncated: false, complete: true },
      }),
      calls: 2,
      exact: { lost: true, totals: false },
    });

    expect(lines).toEqual([
      'Dry run: nothing was written.',
      'No route is lost: every model the enabled rows serve, in every group, still has a channel.',
      '22 rows of a oneapi table in 2 calls: 20 imported, 2 skipped.',
      'Channels that would be created: 21, updated: 0, unchanged: 0, left as edited: 0.',
      '  skipped row 19: unknown legacy channel type 999',
    ]);
  });

  it('counts changed routes in words that agree with the number', () => {
    const changed = (n: number) =>
      summary({
        ...report({
          routes: { total: 3, kept: 3 - n, changed: n, lost: 0, items: [], itemsTruncated: false, complete: true },
        }),
        calls: 1,
        exact: { lost: true, totals: true },
      });

    expect(changed(1)).toContain('1 route keeps fewer channels than the gateway had.');
    expect(changed(2)).toContain('2 routes keep fewer channels than the gateway had.');
  });
});

describe('npm run import:sqlite -- --family (docs/channel-import.md, "Forks")', () => {
  it("sends the chosen family and the file's name (never its directory) with every call", async () => {
    const result = await run([file, '--url', 'http://127.0.0.1:3000', '--family', 'newapi', '--dry-run'], () => ok());

    expect(result.code).toBe(0);
    expect(result.calls.map((c) => [c.body.family, c.body.file])).toEqual([['newapi', 'one-api.db']]);
    expect(() => JSON.parse(result.stdout)).not.toThrow();
  });

  it('refuses a family that is not one of the four, as a usage error', async () => {
    const result = await run([file, '--url', 'http://127.0.0.1:3000', '--family=veloera'], () => ok());

    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--family must be one of oneapi, newapi, onehub, donehub \(got veloera\)/);
    expect(result.calls).toEqual([]);
  });
});

describe('the summary of a fork read as a chosen family, with stale channels and notes', () => {
  it('never says that no route is lost when columns deciding routes were not read', () => {
    const base = report({
      routes: {
        total: 1,
        kept: 1,
        changed: 0,
        lost: 0,
        items: [],
        itemsTruncated: false,
        complete: true,
        unreadColumns: ['model_prefix'],
      },
      stale: { count: 2, items: [], itemsTruncated: true },
      notes: ['a note'],
    });

    const lines = summary({ ...base, calls: 1, exact: { lost: true, totals: true } });

    expect(lines.join('\n')).not.toContain('No route is lost');
    expect(lines).toContain(
      "No route the import reads is lost, but the table's model_prefix column(s) hold values that were not read: routes they decide are not checked.",
    );
    expect(lines).toContain(
      '2 stored channels are produced by no row of this file any more (left as they are; see "stale" in the JSON report).',
    );
    expect(lines).toContain('a note');
  });
});

// What a hostile file can put in a name: ESC sequences that erase and move lines, a carriage return, the 8-bit CSI,
// bidi overrides and isolates, a line break.
const ERASE = '\u001b[2K\r\u001b[1A\u001b[2K';
const HOSTILE_MODEL = `gpt-4o${ERASE}No route is lost: every model the enabled rows serve, in every group, still has a channel.`;
const HOSTILE_GROUP = 'vip\u202e\u2066\u009b2K\nNo route is lost';
const RAW_CONTROL = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

describe('the summary of a hostile file', () => {
  const hostile = () =>
    summary({
      ...report({
        routes: {
          total: 1,
          kept: 0,
          changed: 0,
          lost: 1,
          items: [{ group: HOSTILE_GROUP, model: HOSTILE_MODEL, legacy: 1, imported: 0 }],
          itemsTruncated: false,
          complete: true,
        },
        items: [
          { legacyId: '7\r\u001b[2K', outcome: 'skipped', reason: 'unknown legacy channel type 9\u001b]0;x\u0007' },
        ],
      }),
      calls: 1,
      exact: { lost: true, totals: true },
    });

  it('shows every control, escape and bidi character of a name as a marker, so no line can be rewritten', () => {
    const lines = hostile();

    for (const line of lines) expect(line).not.toMatch(RAW_CONTROL);
    expect(lines[0]).toBe(
      '1 route has no channel after this import: gpt-4o⟨U+001B⟩[2K⟨U+000D⟩⟨U+001B⟩[1A⟨U+001B⟩[2KNo route is lost: every model the enabled rows serve, in every group, still has a channel. (vip⟨U+202E⟩⟨U+2066⟩⟨U+009B⟩2K⟨U+000A⟩No route is lost).',
    );
    expect(lines).toContain('  skipped row 7⟨U+000D⟩⟨U+001B⟩[2K: unknown legacy channel type 9⟨U+001B⟩]0;x⟨U+0007⟩');
  });

  it('never says that no route is lost when the figures are incomplete', () => {
    const lines = summary({
      ...report({
        routes: {
          total: 100_000,
          kept: 100_000,
          changed: 0,
          lost: 0,
          items: [],
          itemsTruncated: false,
          complete: false,
        },
      }),
      calls: 1,
      exact: { lost: true, totals: true },
    });

    expect(lines.join('\n')).not.toContain('No route is lost');
    expect(lines[0]).toBe('No lost route among the routes counted, but not every route was counted: see below.');
    expect(lines).toContain(
      'The table names more routes than an import counts (docs/channel-import.md, "Routes"): the route figures cover those counted, and a route not counted may be lost.',
    );
  });
});

describe('npm run import:sqlite with a hostile file', () => {
  it('prints what the file holds with escape sequences visible, on stderr and in the JSON on stdout', async () => {
    const hostileFile = join(dir(), 'hostile.db');
    writeFileSync(
      hostileFile,
      await sqliteFixtureBytes('oneapi-channels', (d) =>
        d.exec({
          sql: `INSERT INTO channels (id, type, "key", status, models, "group") VALUES (900, 999, 'sk-hostile', 1, ?, ?)`,
          bind: [HOSTILE_MODEL, HOSTILE_GROUP],
        }),
      ),
    );
    // The proxy names the file's route as lost, as the real one does for a row of an unknown type.
    const echo = (sent: { columns: string[]; rows: unknown[][] }) => {
      const row = sent.rows.find((r) => r[sent.columns.indexOf('id')] === 900) ?? [];
      const model = String(row[sent.columns.indexOf('models')]);
      const group = String(row[sent.columns.indexOf('group')]);
      return ok(
        report({
          routes: {
            total: 1,
            kept: 0,
            changed: 0,
            lost: 1,
            items: [{ group, model, legacy: 1, imported: 0 }],
            itemsTruncated: false,
            complete: true,
          },
        }),
      );
    };
    let last: { columns: string[]; rows: unknown[][] } = { columns: [], rows: [] };
    const out: string[] = [];
    const err: string[] = [];

    const result = await runImportSqliteCli([hostileFile, '--url', 'http://proxy.test'], {
      stdout: (line) => out.push(line),
      stderr: (line) => err.push(line),
      env: { ADMIN_KEY },
      sleep: async () => {},
      fetch: async (_url, init) => {
        last = JSON.parse(String(init?.body));
        return echo(last);
      },
    });

    expect(result).toBe(0);
    expect(last.rows.some((r) => r.includes(HOSTILE_MODEL))).toBe(true);
    for (const line of err.join('\n').split('\n')) expect(line).not.toMatch(RAW_CONTROL);
    expect(err.join('\n')).toContain('gpt-4o⟨U+001B⟩[2K⟨U+000D⟩');
    expect(out.join('\n')).not.toMatch(/[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u);
    expect(JSON.parse(out.join('\n')).routes.items[0]).toEqual({
      group: HOSTILE_GROUP,
      model: HOSTILE_MODEL,
      legacy: 1,
      imported: 0,
    });
  });

  it("shows the proxy's words with escape sequences visible", async () => {
    const said = `bad row${ERASE}Import done`;

    const result = await run([file, '--url', 'http://proxy.test'], () =>
      Response.json({ success: false, message: said }, { status: 400 }),
    );

    expect(result.code).toBe(1);
    expect(result.stderr).not.toMatch(RAW_CONTROL);
    expect(result.stderr).toContain('bad row⟨U+001B⟩[2K⟨U+000D⟩⟨U+001B⟩[1A⟨U+001B⟩[2KImport done');
  });
});
