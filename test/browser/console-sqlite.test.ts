/**
 * Import from a SQLite file in a real browser (Debian's Chromium, headless, playwright-core) against the local server
 * and a throwaway MariaDB: the operator picks the gateway's `.db` file with the keyboard, the page reads its
 * `channels` table in a worker with SQLite's WebAssembly build, previews and imports through the rows route, and the
 * channels equal those of the MySQL form of the same fixture. The SQLite files are made here from GORM's SQLite DDL
 * (test/fixtures/*.sqlite.sql, test/support/sqlite-fixtures.ts). Set CONSOLE_SCREENSHOTS=1 to refresh
 * docs/console-sqlite.png.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { GATEWAY_RESPONSES } from '#shared/gateway-responses';
import { callImport } from '#test/integration/import-http.helpers';
import { comparable } from '#test/integration/import-rows.helpers';
import {
  type SqliteFixture,
  sqliteFixtureBytes,
  writeLargeSqliteFile,
  writeSqliteFixture,
} from '#test/support/sqlite-fixtures';
import { useTempDir } from '#test/support/temp-dir';
import { loadSqlite } from '../../scripts/import-sqlite/node-file.ts';
import {
  activeLabel,
  expectCleanRun,
  expectNoSecretsKept,
  screenshot,
  seriousA11yViolations,
  signIn,
  useConsoleWorld,
} from './console.helpers.ts';

const FILE_LABEL = 'SQLite file of the gateway (one-api.db)';
const ONE_API_DDL = readFileSync(new URL('../fixtures/oneapi-channels.sqlite.sql', import.meta.url), 'utf8');

const files = useConsoleWorld();
const { world } = files;
const dir = useTempDir('console-sqlite-');

/** Tabs from the page's top to the file input, opens the file chooser with the keyboard and picks `path`. */
async function pickWithKeyboard(page: Page, path: string): Promise<void> {
  // Chromium shows a file chooser only for the tab in front, as a person's browser does.
  await page.bringToFront();
  await page.locator('#main').focus();
  for (let i = 0; i < 20 && (await activeLabel(page)) !== 'sqlite-input'; i += 1) await page.keyboard.press('Tab');
  expect(await activeLabel(page)).toBe('sqlite-input');
  // Space opens the chooser; on a loaded machine Chromium now and then drops that activation, and a person would
  // press again: Enter, then Space once more.
  for (const key of ['Space', 'Enter', 'Space']) {
    const chooser = page.waitForEvent('filechooser', { timeout: 5_000 }).catch(() => undefined);
    await page.keyboard.press(key);
    const opened = await chooser;
    if (opened !== undefined) {
      await opened.setFiles(path);
      return;
    }
  }
  throw new Error('The file chooser did not open from the keyboard');
}

/** Tab from the file input to its button and press it; waits for the preview or an error. */
async function previewWithKeyboard(page: Page): Promise<void> {
  await page.keyboard.press('Tab');
  expect(await activeLabel(page)).toBe('Read the file and preview');
  await page.keyboard.press('Enter');
  await page
    .locator('#report-heading:visible, #import-error:not(:empty), #key-error:not(:empty)')
    .first()
    .waitFor({ timeout: 60_000 });
}

/** The MySQL form of a fixture imported through the DSN route: its stored channels, comparable. */
async function mysqlChannels(name: SqliteFixture) {
  const database = await world.db.createDatabase(undefined, fixtureSql(name));
  await world.channels.clear();
  const exchange = await callImport(world.server, { json: { dsn: world.db.dsn(database) } });
  expect(exchange.status).toBe(200);
  const channels = (await world.channels.scan()).map(comparable);
  await world.channels.clear();
  return channels;
}

function fixtureSql(name: SqliteFixture): string {
  return readFileSync(new URL(`../fixtures/${name}.sql`, import.meta.url), 'utf8');
}

async function sqliteFile(name: SqliteFixture): Promise<string> {
  const path = join(dir(), `${name}.db`);
  await writeSqliteFixture(name, path);
  return path;
}

describe('import from a SQLite file', () => {
  it.each<SqliteFixture>(['oneapi-channels', 'newapi-newest-channels'])(
    'picks the %s file with the keyboard, previews, imports, and stores the channels of its MySQL form',
    async (name) => {
      const expected = await mysqlChannels(name);
      const path = await sqliteFile(name);
      const bytes: { url: string; size: number }[] = [];
      const { page, recorder } = await files.open();
      page.on('requestfinished', async (request) => {
        bytes.push({ url: request.url(), size: (await request.sizes()).responseBodySize });
      });
      await page.reload();
      await signIn(page, world.server.credentials.adminKey);
      const firstLoad = bytes.filter((b) => new URL(b.url).pathname === '/console');
      const before = recorder.requests.length;

      await pickWithKeyboard(page, path);
      const beforePick = recorder.requests.slice(before);
      await previewWithKeyboard(page);
      await page.getByRole('heading', { name: 'Preview: nothing is written yet' }).waitFor();
      const previewSource = await page.locator('#report-source').textContent();
      const stored = await world.channels.scan();
      if (name === 'newapi-newest-channels') {
        await screenshot(page.locator('#import-section'), 'console-sqlite.png');
      }
      expect(await seriousA11yViolations(page)).toEqual([]);
      await page.getByRole('button', { name: 'Import', exact: true }).focus();
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: 'Import done' }).waitFor({ timeout: 60_000 });

      expect(beforePick.filter((url) => url.includes('/console/assets/'))).toEqual([]);
      // The first load is the page alone (docs/performance.md); SQLite's build is requested with the file (below).
      process.stdout.write(`${JSON.stringify({ consoleFirstLoadBytes: firstLoad.map((b) => b.size) })}\n`);
      expect(firstLoad).toHaveLength(1);
      expect(firstLoad[0]?.size).toBeLessThan(64 * 1024);
      expect(previewSource).toMatch(
        new RegExp(`^Source: the SQLite file ${name}\\.db, channels table, \\d+ rows read;`),
      );
      expect(stored).toEqual([]);
      const imported = await world.channels.scan();
      expect(imported.map(comparable)).toEqual(expected);
      // The file's name (a browser gives no path) is recorded as where the channels came from.
      expect(new Set(imported.map((c) => c.source.database))).toEqual(new Set([`${name}.db`]));
      const assets = recorder.requests.filter((url) => url.includes('/console/assets/'));
      expect(assets).toEqual([
        expect.stringMatching(/\/console\/assets\/sqlite-worker-[0-9a-f]{16}\.js$/),
        expect.stringMatching(/\/console\/assets\/sqlite3-[0-9a-f]{16}\.wasm$/),
      ]);
      // Nothing but the channels table's rows left the browser: no request carried the file.
      expect(recorder.requests.filter((url) => url.includes('.db'))).toEqual([]);
      expectCleanRun(world, recorder);
      // The file's keys (as the import stored them) are never in the DOM, a storage or a response: only masks are.
      const keys = [...new Set(expected.map((c) => c.key))].filter((key) => key.length >= 16);
      expect(keys.length).toBeGreaterThan(5);
      await expectNoSecretsKept(world, page, recorder, keys);
    },
    120_000,
  );
});

/** A SQLite file made of `statements`, written to the test directory under `name`. */
async function sqliteOf(name: string, statements: readonly string[]): Promise<string> {
  const sqlite3 = await loadSqlite();
  const db = new sqlite3.oo1.DB(':memory:', 'c');
  try {
    for (const statement of statements) db.exec(statement);
    const path = join(dir(), name);
    writeFileSync(path, sqlite3.capi.sqlite3_js_db_export(db));
    return path;
  } finally {
    db.close();
  }
}

/** One API's channels table (GORM's SQLite DDL) with `count` importable rows from id `from`. */
async function bigOneApiFile(name: string, count: number, from = 1): Promise<string> {
  const bytes = await sqliteFixtureBytes('oneapi-channels', (db) => {
    db.exec('DELETE FROM channels');
    db.exec('BEGIN');
    const insert = db.prepare(
      "INSERT INTO channels (id, type, key, status, name, base_url, models, \"group\") VALUES (?, 1, ?, 1, ?, '', 'gpt-4o,gpt-4o-mini', 'default')",
    );
    try {
      for (let i = from; i < from + count; i += 1) insert.bind([i, `sk-sqlite-many-${i}`, `many-${i}`]).stepReset();
    } finally {
      insert.finalize();
    }
    db.exec('COMMIT');
  });
  const path = join(dir(), name);
  writeFileSync(path, bytes);
  return path;
}

describe('import from a SQLite file: what goes wrong', () => {
  it.each([
    [
      'a file that is not SQLite',
      async () => {
        const path = join(dir(), 'notes.db');
        writeFileSync(path, 'These are my notes, not a database.\n'.repeat(20));
        return path;
      },
      /The file is not a SQLite database/,
    ],
    [
      'a SQLite file without a channels table',
      () =>
        sqliteOf('logs-only.db', [
          'CREATE TABLE logs (id integer primary key, content text)',
          "INSERT INTO logs (content) VALUES ('x')",
        ]),
      /The file has no `channels` table: it is not a One API or New API database/,
    ],
    [
      'a channels table of no gateway the import knows',
      () =>
        sqliteOf('unknown.db', [
          'CREATE TABLE channels (id integer primary key, type integer, key text, status integer, base_url text, models text, tag text)',
          "INSERT INTO channels VALUES (1, 1, 'sk-unknown-family', 1, '', 'gpt-4o', 'x')",
        ]),
      /matches no gateway this import knows/,
    ],
    [
      'a truncated file',
      async () => {
        const bytes = await sqliteFixtureBytes('oneapi-channels', (db) =>
          db.exec(
            `CREATE TABLE logs (id integer primary key, content text); INSERT INTO logs (content) SELECT printf('%.10000c', 'x') FROM (WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 50) SELECT i FROM n)`,
          ),
        );
        const path = join(dir(), 'truncated.db');
        writeFileSync(path, bytes.subarray(0, Math.floor(bytes.length / 2)));
        return path;
      },
      /The file is truncated/,
    ],
  ])(
    'says what is wrong with %s, and writes nothing',
    async (_, make, message) => {
      await world.channels.clear();
      const path = await make();
      const { page, recorder } = await files.openSignedIn();

      await pickWithKeyboard(page, path);
      await previewWithKeyboard(page);

      expect(await page.locator('#import-error').textContent()).toMatch(message);
      expect(await page.locator('#report').isHidden()).toBe(true);
      expect(await activeLabel(page)).toBe('sqlite-input');
      expect(await world.channels.scan()).toEqual([]);
      expectCleanRun(world, recorder);
    },
    60_000,
  );

  it('lists the rows over the limits with the reasons of the import, and imports the others', async () => {
    await world.channels.clear();
    const path = await sqliteOf('limits.db', [
      ONE_API_DDL,
      "INSERT INTO channels (id, type, key, status, name, base_url, models) VALUES (1, 1, 'sk-sqlite-limits-1', 1, 'ok', '', 'gpt-4o')",
      "INSERT INTO channels (id, type, key, status, name, base_url, models) VALUES (2, 1, printf('%.2000000c', 'k'), 1, 'key over', '', 'gpt-4o')",
      "INSERT INTO channels (id, type, key, status, name, base_url, models) VALUES (3, 1, 'sk-sqlite-limits-3', 1, 'url over', 'https://' || printf('%.3000c', 'u'), 'gpt-4o')",
    ]);
    const { page, recorder } = await files.openSignedIn();

    await pickWithKeyboard(page, path);
    await previewWithKeyboard(page);

    expect(
      await page
        .getByRole('table', { name: /Skipped rows/ })
        .locator('tbody tr')
        .allInnerTexts(),
    ).toEqual(['2\tkey over 1 MiB', '3\tbase_url over 2 KiB']);
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await page.getByRole('heading', { name: 'Import done' }).waitFor();
    expect((await world.channels.scan()).map((c) => c.source.legacyId)).toEqual([1]);
    expectCleanRun(world, recorder);
  }, 60_000);

  it('sends a throttled call again after a pause, and the import completes', async () => {
    const expected = await mysqlChannels('oneapi-channels');
    const path = await sqliteFile('oneapi-channels');
    const { page, recorder } = await files.openSignedIn();
    let throttled = 0;
    await page.route('**/api/channels/import/rows', async (route) => {
      if ((route.request().postDataJSON() as { dryRun?: boolean }).dryRun === false && throttled++ === 0) {
        const body = JSON.stringify(GATEWAY_RESPONSES.proxy.THROTTLED.body);
        await route.fulfill({ status: 429, contentType: 'application/json', body });
      } else {
        await route.continue();
      }
    });

    await pickWithKeyboard(page, path);
    await previewWithKeyboard(page);
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await page.getByRole('heading', { name: 'Import done' }).waitFor({ timeout: 60_000 });

    expect(throttled).toBe(2);
    expect((await world.channels.scan()).map(comparable)).toEqual(expected);
    expectCleanRun(world, recorder);
  }, 60_000);

  it('loses nothing when the session ends mid-import: signing in and running the import again completes it', async () => {
    await world.channels.clear();
    // Two calls: 5,000 rows, then 150.
    const path = await bigOneApiFile('two-calls.db', 5_150);
    const { page, recorder } = await files.openSignedIn();
    await pickWithKeyboard(page, path);
    await previewWithKeyboard(page);
    await page.getByRole('heading', { name: 'Preview: nothing is written yet' }).waitFor();
    const previewText = await page.locator('#report-source').textContent();
    // The second real call meets an expired key: the gateway's 401, as API Gateway answers it.
    let realCalls = 0;
    await page.route('**/api/channels/import/rows', async (route) => {
      const body = route.request().postDataJSON() as { dryRun?: boolean };
      if (body.dryRun === false && ++realCalls === 2) {
        await route.fulfill({
          status: 401,
          contentType: 'application/json',
          body: JSON.stringify(GATEWAY_RESPONSES.proxy.ACCESS_DENIED.body),
        });
      } else {
        await route.continue();
      }
    });

    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await page.locator('#key-error:not(:empty)').waitFor({ timeout: 60_000 });
    const stopped = await page.locator('#key-error').textContent();
    const afterFirstCall = await world.channels.scan();
    await signIn(page, world.server.credentials.adminKey);
    await page.getByLabel(FILE_LABEL).focus();
    await previewWithKeyboard(page);
    await page.getByRole('heading', { name: 'Preview: nothing is written yet' }).waitFor();
    const counts = await page.locator('#report-counts').innerText();
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await page.getByRole('heading', { name: 'Import done' }).waitFor({ timeout: 60_000 });

    expect(previewText).toMatch(/5,150 rows read in 2 calls/);
    expect(stopped).toMatch(
      /stopped after 5,000 of 5,150 rows were imported; nothing of them is lost\. Run it again to complete it\./,
    );
    expect(afterFirstCall).toHaveLength(5_000);
    expect(counts).toMatch(/Channels to create\s+150/);
    expect(counts).toMatch(/Channels unchanged\s+5,000/);
    expect(await world.channels.scan()).toHaveLength(5_150);
    expectCleanRun(world, recorder);
  }, 180_000);
});

/** Pids of this process's Chromium renderers (descendants of this test process with `--type=renderer`). */
function rendererPids(): number[] {
  const parents = new Map<number, number>();
  const renderers: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('--type=renderer')) renderers.push(Number(entry));
    } catch {
      // The process ended while the table was read.
    }
  }
  const descends = (pid: number): boolean => {
    for (let p = parents.get(pid); p !== undefined && p > 1; p = parents.get(p)) if (p === process.pid) return true;
    return false;
  };
  return renderers.filter(descends);
}

/** Peak and current resident memory (MiB) of each of this process's Chromium renderers, by pid. */
function rendererMemory(): Map<number, { peakMiB: number; rssMiB: number }> {
  const memory = new Map<number, { peakMiB: number; rssMiB: number }>();
  for (const pid of rendererPids()) {
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      const kB = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0);
      memory.set(pid, { peakMiB: Math.round(kB('VmHWM') / 1024), rssMiB: Math.round(kB('VmRSS') / 1024) });
    } catch {
      // Ended.
    }
  }
  return memory;
}

/** The renderer whose peak grew most since `before` (the tab that read the file; its worker runs in it). */
function grownMost(before: Map<number, { rssMiB: number }>, after: Map<number, { peakMiB: number }>) {
  let most = { pid: 0, beforeMiB: 0, peakMiB: 0, growthMiB: Number.NEGATIVE_INFINITY };
  for (const [pid, { rssMiB }] of before) {
    const peak = after.get(pid)?.peakMiB;
    if (peak !== undefined && peak - rssMiB > most.growthMiB) {
      most = { pid, beforeMiB: rssMiB, peakMiB: peak, growthMiB: peak - rssMiB };
    }
  }
  return most;
}

describe('import from a SQLite file of over 200 MB whose logs table is most of it', () => {
  it("reads the channels table only: a few hundred KB of the file, and the tab's memory grows far less than the file", async () => {
    await world.channels.clear();
    const path = join(dir(), 'large-one-api.db');
    await writeLargeSqliteFile('oneapi-channels', path);
    const fileMiB = statSync(path).size / (1024 * 1024);
    const { page, recorder } = await files.open();
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');
    await signIn(page, world.server.credentials.adminKey);
    const before = rendererMemory();

    const started = performance.now();
    await pickWithKeyboard(page, path);
    await previewWithKeyboard(page);
    await page.getByRole('heading', { name: 'Preview: nothing is written yet' }).waitFor();
    const previewMs = performance.now() - started;
    const source = (await page.locator('#report-source').textContent()) ?? '';
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await page.getByRole('heading', { name: 'Import done' }).waitFor({ timeout: 60_000 });
    const totalMs = performance.now() - started;
    const renderer = grownMost(before, rendererMemory());
    const { metrics } = (await cdp.send('Performance.getMetrics')) as { metrics: { name: string; value: number }[] };
    const heapMiB = Math.round((metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? 0) / (1024 * 1024));
    const readKB = Number(/; ([\d,.]+) KB of its/.exec(source)?.[1]?.replace(/,/g, '') ?? Number.NaN);

    // The figures of docs/performance.md ("Import from a SQLite file in the console"); no time is asserted.
    process.stdout.write(
      `${JSON.stringify({ sqliteConsole: { fileMiB: Math.round(fileMiB), readKB, previewMs: Math.round(previewMs), previewAndImportMs: Math.round(totalMs), rendererRssBeforeMiB: renderer.beforeMiB, rendererPeakMiB: renderer.peakMiB, pageJsHeapMiB: heapMiB } })}\n`,
    );
    expect(fileMiB).toBeGreaterThan(200);
    expect(source).toMatch(/ KB of its \d+(\.\d)? MB read, in this browser only/);
    expect(readKB).toBeLessThan(1024);
    // Reading the file whole would add its 210 MB to the renderer; SQLite, the worker and the page need far less.
    expect(renderer.growthMiB).toBeLessThan(120);
    expect(await world.channels.scan()).not.toEqual([]);
    expectCleanRun(world, recorder);
  }, 180_000);
});
