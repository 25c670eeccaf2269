/**
 * Import from a SQLite file in a real browser (Debian's Chromium, headless, playwright-core) against the local server
 * and a throwaway MariaDB: the operator picks the gateway's `.db` file with the keyboard, the page reads its
 * `channels` table in a worker with SQLite's WebAssembly build, previews and imports through the rows route, and the
 * channels equal those of the MySQL form of the same fixture. The SQLite files are made here from GORM's SQLite DDL
 * (test/fixtures/*.sqlite.sql, test/support/sqlite-fixtures.ts). Set CONSOLE_SCREENSHOTS=1 to refresh
 * docs/console-sqlite.png.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { GATEWAY_RESPONSES } from '#shared/gateway-responses';
import { callImport } from '#test/integration/import-http.helpers';
import { comparable } from '#test/integration/import-rows.helpers';
import { type SqliteFixture, sqliteFixtureBytes, writeSqliteFixture } from '#test/support/sqlite-fixtures';
import { useTempDir } from '#test/support/temp-dir';
import {
  activeLabel,
  type ConsoleWorld,
  expectCleanRun,
  expectNoSecretsKept,
  seriousA11yViolations,
  signIn,
  useConsoleWorld,
} from './console.helpers.ts';

const SCREENSHOTS = process.env.CONSOLE_SCREENSHOTS === '1';
const DOCS = join(import.meta.dirname, '..', '..', 'docs');
const FILE_LABEL = 'SQLite file of the gateway (one-api.db)';

const files = useConsoleWorld();
const dir = useTempDir('console-sqlite-');
let world: ConsoleWorld;
beforeAll(() => {
  world = files.world();
});

/** Tabs from the page's top to the file input, opens the file chooser with the keyboard and picks `path`. */
async function pickWithKeyboard(page: Page, path: string): Promise<void> {
  await page.locator('#main').focus();
  for (let i = 0; i < 20 && (await activeLabel(page)) !== 'sqlite-input'; i += 1) await page.keyboard.press('Tab');
  expect(await activeLabel(page)).toBe('sqlite-input');
  const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.keyboard.press('Space')]);
  await chooser.setFiles(path);
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
      const { page, recorder } = await files.open();
      await signIn(page, world.server.credentials.adminKey);
      const before = recorder.requests.length;

      await pickWithKeyboard(page, path);
      const beforePick = recorder.requests.slice(before);
      await previewWithKeyboard(page);
      await page.getByRole('heading', { name: 'Preview: nothing is written yet' }).waitFor();
      const previewSource = await page.locator('#report-source').textContent();
      const stored = await world.channels.scan();
      if (SCREENSHOTS && name === 'newapi-newest-channels') {
        await page.locator('#import-section').screenshot({ path: join(DOCS, 'console-sqlite.png') });
      }
      expect(await seriousA11yViolations(page)).toEqual([]);
      await page.getByRole('button', { name: 'Import', exact: true }).focus();
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: 'Import done' }).waitFor({ timeout: 60_000 });

      expect(beforePick.filter((url) => url.includes('/console/assets/'))).toEqual([]);
      expect(previewSource).toMatch(
        new RegExp(`^Source: the SQLite file ${name}\\.db, channels table, \\d+ rows read;`),
      );
      expect(stored).toEqual([]);
      expect((await world.channels.scan()).map(comparable)).toEqual(expected);
      const assets = recorder.requests.filter((url) => url.includes('/console/assets/'));
      expect(assets).toEqual([
        expect.stringMatching(/\/console\/assets\/sqlite-worker-[0-9a-f]{16}\.js$/),
        expect.stringMatching(/\/console\/assets\/sqlite3-[0-9a-f]{16}\.wasm$/),
      ]);
      // Nothing but the channels table's rows left the browser: no request carried the file.
      expect(recorder.requests.filter((url) => url.includes('.db'))).toEqual([]);
      expectCleanRun(world, recorder);
      await expectNoSecretsKept(world, page, recorder);
    },
    120_000,
  );
});
