import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { FIXTURE_KEYS, FIXTURE_SQL } from '#test/integration/import.helpers';
import {
  callImport,
  type ImportHarness,
  startImportHarness,
  stopImportHarness,
} from '#test/integration/import-http.helpers';
import {
  launchBrowser,
  type PageRecorder,
  pageStores,
  recordPage,
  runAxe,
  type TestBrowser,
} from '#test/support/browser';

/** One browser test file's world: MariaDB with the public fixture, the local server, Chromium. */
export interface ConsoleWorld extends ImportHarness {
  browser: TestBrowser;
  /** DSN of the fixture database (its password holds `@ : / ( )`). */
  dsn: string;
}

export async function startConsoleWorld(): Promise<ConsoleWorld> {
  const [harness, browser] = await Promise.all([startImportHarness({ LOG_LEVEL: 'SILENT' }), launchBrowser()]);
  const database = await harness.db.createDatabase(undefined, FIXTURE_SQL);
  return { ...harness, browser, dsn: harness.db.dsn(database) };
}

export async function stopConsoleWorld(world: Partial<ConsoleWorld>): Promise<void> {
  await Promise.all([world.browser?.close(), stopImportHarness(world)]);
}

/**
 * A test file's world, started in beforeAll and stopped in afterAll with every tab the file opened:
 * `world()` once started, `open()` a fresh tab on GET /console, `openSignedIn()` the same signed in with the admin
 * key, `newPage()` a blank tracked tab.
 */
export function useConsoleWorld() {
  let world: ConsoleWorld | undefined;
  const pages: Page[] = [];
  beforeAll(async () => {
    world = await startConsoleWorld();
  }, 120_000);
  afterAll(async () => {
    for (const page of pages) await page.close().catch(() => {});
    await stopConsoleWorld(world ?? {});
  });
  const started = (): ConsoleWorld => {
    if (!world) throw new Error('The console test world is not started');
    return world;
  };
  const open = async (viewport?: { width: number; height: number }) => {
    const opened = await openConsole(started(), viewport);
    pages.push(opened.page);
    return opened;
  };
  return {
    /** The file's world, usable from its tests on (each property read goes to the world its beforeAll started). */
    world: new Proxy({} as ConsoleWorld, { get: (_target, name) => Reflect.get(started(), name) }),
    open,
    async openSignedIn(viewport?: { width: number; height: number }) {
      const opened = await open(viewport);
      await signIn(opened.page, started().server.credentials.adminKey);
      return opened;
    },
    async newPage(): Promise<Page> {
      const page = await started().browser.context.newPage();
      pages.push(page);
      return page;
    },
  };
}

/** With CONSOLE_SCREENSHOTS=1, saves a screenshot of `target` as docs/<name> (the images the docs show). */
export async function screenshot(target: Page | Locator, name: string): Promise<void> {
  if (process.env.CONSOLE_SCREENSHOTS !== '1') return;
  await target.screenshot({ path: join(import.meta.dirname, '..', '..', 'docs', name) });
}

/** Runs the DSN form: the preview (dry run), waiting for its report. */
export async function previewImport(page: Page, dsn: string): Promise<void> {
  await page.getByLabel("DSN of the legacy gateway's MySQL or PostgreSQL database").fill(dsn);
  await page.getByRole('button', { name: 'Preview import' }).click();
  await page.getByRole('heading', { name: 'Preview: nothing is written yet' }).waitFor();
}

/** After a preview of the fixture: "Import", waiting for the report and the table's 21 channels. */
export async function runImport(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Import', exact: true }).click();
  await page.getByRole('heading', { name: 'Import done' }).waitFor();
  await page
    .locator('#page-info')
    .filter({ hasText: /21 channels/ })
    .waitFor();
}

/** Empties the channels table and, unless `imported` is false, imports the fixture through the API. */
export async function resetChannels(world: ConsoleWorld, imported = true): Promise<void> {
  await world.channels.clear();
  if (imported) {
    const exchange = await callImport(world.server, { json: { dsn: world.dsn } });
    expect(exchange.status).toBe(200);
  }
}

/** A fresh tab on GET /console, recording what it does. */
export async function openConsole(
  world: ConsoleWorld,
  viewport = { width: 1280, height: 900 },
): Promise<{ page: Page; recorder: PageRecorder }> {
  const page = await world.browser.context.newPage();
  await page.setViewportSize(viewport);
  const recorder = await recordPage(page);
  const response = await page.goto(`${world.server.url}/console`);
  expect(response?.status()).toBe(200);
  return { page, recorder };
}

/** Pastes the admin key into the key form and waits until the channel table has loaded. */
export async function signIn(page: Page, key: string): Promise<void> {
  await page.getByLabel('Admin key of the channel proxy API').fill(key);
  await page.getByRole('button', { name: 'Use this key' }).click();
  await page.getByRole('heading', { name: 'Channels' }).waitFor();
  await page
    .locator('#page-info')
    .filter({ hasText: /channel/ })
    .waitFor();
}

/** The table's rows as `name | provider | models | key | status [| edited]` lines. */
export async function tableRows(page: Page): Promise<string[]> {
  return page.locator('#channels-body tr[data-id]').evaluateAll((rows) =>
    rows.map((row) => {
      const cells = [...row.querySelectorAll('td')].map((td) => td.textContent ?? '');
      return cells.slice(1, 7).join(' | ');
    }),
  );
}

/**
 * Asserts that no whole fixture key, nor the DSN's password, nor the DSN, nor any of `more` (secret settings a
 * test stored), is in any response the page
 * received, its DOM (markup and field values), localStorage, cookies or URL; sessionStorage may hold
 * the admin key and nothing else secret.
 */
export async function expectNoSecretsKept(
  world: ConsoleWorld,
  page: Page,
  recorder: PageRecorder,
  more: readonly string[] = [],
): Promise<void> {
  const secrets = [...FIXTURE_KEYS, world.db.password, world.dsn, ...more];
  const { places, sessionStorage } = await pageStores(page);
  const bodies = await recorder.responseBodies();
  expect(bodies.length).toBeGreaterThan(0);
  for (const secret of secrets) {
    for (const [place, text] of Object.entries(places)) expect(text, place).not.toContain(secret);
    expect(sessionStorage, 'sessionStorage').not.toContain(secret);
    for (const body of bodies) expect(body, 'a response body').not.toContain(secret);
  }
  for (const [place, text] of Object.entries(places))
    expect(text, place).not.toContain(world.server.credentials.adminKey);
  expect(places.cookies).toBe('[]');
  expect(places.localStorage).toBe('{}');
}

/** Asserts the page ran clean: no CSP violation, no script error, no request off its origin. */
export function expectCleanRun(world: ConsoleWorld, recorder: PageRecorder): void {
  expect(recorder.cspViolations).toEqual([]);
  expect(recorder.pageErrors).toEqual([]);
  expect(recorder.consoleMessages.filter((m) => /Content.Security.Policy|Refused to/i.test(m))).toEqual([]);
  const origin = new URL(world.server.url).origin;
  expect(recorder.requests.filter((url) => new URL(url).origin !== origin)).toEqual([]);
}

/** Axe findings that matter here: serious or critical. */
export async function seriousA11yViolations(page: Page) {
  return (await runAxe(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** The focused element as a person would name it: its aria-label, id, or text. */
export function activeLabel(page: Page): Promise<string> {
  return page.evaluate<string>(
    "(() => { const e = document.activeElement; return e ? (e.getAttribute('aria-label') || e.id || e.textContent || e.tagName) : '' })()",
  );
}
