/**
 * The console's import preview for a gateway as it is now (docs/console.md): stale channels listed and disabled on
 * request, and a fork's table read as the family the operator chooses. Debian's Chromium, headless, against the local
 * server and a throwaway MariaDB.
 */
import { describe, expect, it } from 'vitest';
import { FIXTURE_SQL } from '#test/integration/import.helpers';
import {
  activeLabel,
  expectCleanRun,
  previewImport,
  resetChannels,
  screenshot,
  seriousA11yViolations,
  signIn,
  tableRows,
  useConsoleWorld,
} from './console.helpers.ts';

const files = useConsoleWorld();
const { world } = files;

const FORK = `CREATE TABLE channels (id bigint PRIMARY KEY, type bigint, \`key\` longtext NOT NULL, status bigint,
    name varchar(191), base_url varchar(191) DEFAULT '', models longtext, \`group\` varchar(32) DEFAULT 'default',
    exchange_rate double DEFAULT 0);
  INSERT INTO channels (id, type, \`key\`, status, name, models, exchange_rate) VALUES
    (1, 1, 'sk-console-fork-0001', 1, 'rated', 'gpt-4o', 7.2);`;

describe('stale channels in the preview', () => {
  it('lists a channel whose legacy row is gone and disables it on request, leaving it stored', async () => {
    await resetChannels(world);
    const withoutRow1 = world.db.dsn(
      await world.db.createDatabase(undefined, `${FIXTURE_SQL}\nDELETE FROM channels WHERE id = 1;`),
    );
    const { page, recorder } = await files.openSignedIn();

    await previewImport(page, withoutRow1);

    const stale = page.getByRole('region', { name: 'Channels no row produces any more' });
    await stale.waitFor();
    expect(await stale.locator('#stale-summary').innerText()).toMatch(
      /^1 stored channel is produced by no row of this table any more .* the import never deletes a channel, and 1 of them still serves requests\.$/,
    );
    expect(await stale.locator('tbody tr').allInnerTexts()).toEqual(['openai-main\topenai\tenabled\t1']);
    expect(await seriousA11yViolations(page)).toEqual([]);
    await screenshot(stale, 'console-stale.png');

    await stale.getByRole('button', { name: 'Disable the enabled one' }).click();
    await stale.getByText('Disabled 1 stale channel.').waitFor();

    const stored = (await world.channels.scan()).find((c) => c.source.legacyId === 1);
    expect(stored).toMatchObject({ name: 'openai-main', status: 'disabled' });
    expect(await stale.getByRole('button', { name: /Disable/ }).isHidden()).toBe(true);
    expectCleanRun(world, recorder);
  });

  it('shows no stale section when every stored channel still has its row', async () => {
    await resetChannels(world);
    const { page } = await files.openSignedIn();

    await previewImport(page, world.dsn);

    expect(await page.locator('#report-stale').isHidden()).toBe(true);
  });
});

describe("a fork's table", () => {
  it('is refused naming its column, then read as the gateway chosen, at 390 px', async () => {
    await resetChannels(world, false);
    const fork = world.db.dsn(await world.db.createDatabase(undefined, FORK));
    const { page } = await files.openSignedIn({ width: 390, height: 900 });

    await page.getByLabel("DSN of the legacy gateway's MySQL or PostgreSQL database").fill(fork);
    await page.getByRole('button', { name: 'Preview import' }).click();
    await page.locator('#import-error').filter({ hasText: 'exchange_rate' }).waitFor();
    expect(await page.locator('#import-error').innerText()).toMatch(
      /no version of One API has column\(s\) exchange_rate: .*"family": "oneapi"/,
    );

    await page.getByLabel('Gateway that wrote the table').selectOption('oneapi');
    await previewImport(page, fork);

    expect(await page.locator('#routes-lost').innerText()).toBe(
      "No model loses its channels among the routes this import reads, but the table's exchange_rate column holds values that were not read: routes it decides are not checked.",
    );
    expect(await page.locator('#report-warnings tbody tr').allInnerTexts()).toEqual([
      '1\tnot read (columns no version of One API has): exchange_rate',
    ]);
    const overflow = await page.evaluate('document.documentElement.scrollWidth > window.innerWidth');
    expect(overflow).toBe(false);
  });
});

describe('console fixes (docs/console.md)', () => {
  it.each([
    { width: 1280, height: 900 },
    { width: 390, height: 844 },
  ])('says the key is set only once it is, at $width px', async (viewport) => {
    const { page } = await files.open(viewport);

    const line = page.getByText('The admin key is set for this tab.');
    expect(await line.isVisible()).toBe(false);
    await signIn(page, world.server.credentials.adminKey);
    expect(await line.isVisible()).toBe(true);
  });

  it('filters by provider in any case and by group, names the groups, and says which filters leave the table empty', async () => {
    await resetChannels(world);
    const { page } = await files.openSignedIn();
    const apply = async (fields: { provider?: string; group?: string; keyword?: string }) => {
      await page.getByLabel('Provider').fill(fields.provider ?? '');
      await page.getByLabel('Group', { exact: true }).fill(fields.group ?? '');
      await page.getByLabel('Keyword').fill(fields.keyword ?? '');
      const answered = page.waitForResponse((r) => r.url().includes('/api/channels/?'));
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await answered;
    };

    await apply({ provider: 'OpenAI' });
    const openai = await tableRows(page);
    await apply({ group: 'vip' });
    const vip = await page.locator('#channels-body td[data-label="Settings"]').allInnerTexts();
    await apply({ provider: 'openai', keyword: 'no-such-channel-anywhere' });
    const empty = await page.locator('#channels-body td').innerText();

    expect(openai.length).toBeGreaterThan(0);
    expect(openai.every((row) => row.split(' | ')[1] === 'openai')).toBe(true);
    expect(vip.length).toBeGreaterThan(0);
    expect(vip.every((settings) => /\bgroups? [^;]*\bvip\b/.test(settings))).toBe(true);
    expect(empty).toBe(
      'No channel matches the filters provider "openai", keyword "no-such-channel-anywhere". Clear them to see every channel.',
    );
  });

  it.each([
    { width: 1280, height: 900 },
    { width: 390, height: 844 },
  ])('shows a save error beside its field, announced, with focus on the field, at $width px', async (viewport) => {
    await resetChannels(world);
    const { page } = await files.openSignedIn(viewport);

    await page.locator('#channels-body [data-action="edit"]').first().click();
    const dialog = page.locator('#edit-dialog');
    await dialog.getByLabel('Base URL').fill('ftp://files.example.com');
    await dialog.getByRole('button', { name: 'Save' }).click();
    const error = dialog.getByRole('alert');
    await error.filter({ hasText: 'baseUrl must be' }).waitFor();

    expect(await activeLabel(page)).toBe('edit-base-url');
    expect(
      await page.evaluate(
        "document.getElementById('edit-base-url').nextElementSibling === document.getElementById('edit-error')",
      ),
    ).toBe(true);
    expect(await page.locator('#edit-base-url').getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#edit-base-url').getAttribute('aria-describedby')).toContain('edit-error');
    expect(await error.isVisible()).toBe(true);
    const box = await error.boundingBox();
    expect(box !== null && box.y >= 0 && box.y + box.height <= viewport.height).toBe(true);
    expect(await seriousA11yViolations(page)).toEqual([]);
    if (viewport.width === 390) await screenshot(page, 'console-save-error.png');
  });
});
