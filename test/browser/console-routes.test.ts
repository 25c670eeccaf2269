/**
 * Routes in the console's preview (docs/console.md), in a real browser (Debian's Chromium, headless, playwright-core)
 * against the local server and a throwaway MariaDB holding test/fixtures/legacygw-routes.sql: a model served only by
 * a row of an unknown type is shown lost, above the Import button, with the keyboard alone and at 360 px.
 * Set CONSOLE_SCREENSHOTS=1 to refresh docs/console-routes.png.
 */
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROUTES_FIXTURE_SQL } from '#test/integration/import.helpers';
import {
  activeLabel,
  expectCleanRun,
  expectNoSecretsKept,
  previewImport,
  resetChannels,
  screenshot,
  seriousA11yViolations,
  useConsoleWorld,
} from './console.helpers.ts';

const files = useConsoleWorld();
const { world } = files;
let routesDsn: string;
beforeAll(async () => {
  routesDsn = world.db.dsn(await world.db.createDatabase(undefined, ROUTES_FIXTURE_SQL));
});

/** The text of the routes part of the report, one line per paragraph or list item. */
function routeLines(page: Page): Promise<string[]> {
  return page.locator('#routes-body').locator('p, li').allInnerTexts();
}

/** Whether `first` comes before `second` in the document (what a screen reader reads first). */
function precedes(page: Page, first: string, second: string): Promise<boolean> {
  return page.evaluate(
    `(() => { const a = document.querySelector(${JSON.stringify(first)}); const b = document.querySelector(${JSON.stringify(second)});
      return Boolean(a && b && a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING); })()`,
  );
}

describe('routes in the import preview', () => {
  it('shows, with the keyboard alone at 360 px, the models that would lose every channel above the Import button, then the changed ones', async () => {
    await resetChannels(world, false);
    const { page, recorder } = await files.open({ width: 360, height: 900 });

    await page.getByLabel('Admin key of the channel proxy API').focus();
    await page.keyboard.type(world.server.credentials.adminKey);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Channels' }).waitFor();
    await page.getByLabel("DSN of the legacy gateway's MySQL or PostgreSQL database").focus();
    await page.keyboard.type(routesDsn);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Preview: nothing is written yet' }).waitFor();

    expect(await activeLabel(page)).toBe('report-heading');
    expect(await routeLines(page)).toEqual([
      '2 models would have no channel in their groups after this import:',
      'o1 (night shift)',
      'only-on-fork (default)',
      '1 model would keep fewer of the legacy channels that served it:',
      'gpt-4o (vip): 1 of 2 legacy rows to import',
    ]);
    expect(await page.getByRole('list', { name: 'Models that lose every channel' }).locator('li').count()).toBe(2);
    // Each name from the legacy table is isolated, so a bidi character in one cannot reorder the sentence.
    expect(await page.locator('#routes-body li bdi').allInnerTexts()).toEqual([
      'o1',
      'night shift',
      'only-on-fork',
      'default',
      'gpt-4o',
      'vip',
    ]);
    expect(await precedes(page, '#routes-lost', '#import-run')).toBe(true);
    expect(await precedes(page, '#routes-lost', '#report-skipped')).toBe(true);
    const [lostTop, runTop] = await Promise.all(
      ['#routes-lost', '#import-run'].map(async (s) => (await page.locator(s).boundingBox())?.y ?? Number.NaN),
    );
    expect(lostTop).toBeLessThan(runTop ?? Number.NaN);
    // The Import button is described by the lost routes' sentence, so it is read again where the operator confirms.
    expect(
      await page.evaluate(
        "document.getElementById(document.getElementById('import-run').getAttribute('aria-describedby')).textContent",
      ),
    ).toBe('2 models would have no channel in their groups after this import:');
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
    expect(await seriousA11yViolations(page)).toEqual([]);
    await screenshot(page.locator('#import-section'), 'console-routes.png');

    await page.keyboard.press('Tab');
    expect(await activeLabel(page)).toBe('import-run');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Import done' }).waitFor();

    expect((await routeLines(page))[0]).toBe('2 models have no channel in their groups after this import:');
    expect(await world.server.countItems('channels')).toBe(4);
    expectCleanRun(world, recorder);
    await expectNoSecretsKept(world, page, recorder);
  });

  it('says so when no model loses its channels', async () => {
    await resetChannels(world, false);
    const { page, recorder } = await files.openSignedIn();

    await previewImport(page, world.dsn);

    const lines = await routeLines(page);
    expect(lines[0]).toBe('No model loses its channels.');
    expect(lines[1]).toBe('1 model would keep fewer of the legacy channels that served it:');
    expect(await page.locator('#routes-lost').getAttribute('class')).toBeNull();
    const counts = (await page.locator('#report-counts').innerText()).replace(/\s+/g, ' ');
    expect(counts).toContain('Routes kept 27 Routes changed 1 Routes lost 0');
    expectCleanRun(world, recorder);
    await expectNoSecretsKept(world, page, recorder);
  });
});
