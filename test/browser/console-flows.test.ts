/**
 * The import review console's flows in a real browser (Debian's Chromium, headless, playwright-core)
 * against the local server (the real handlers and authorizer over dynalite) and a throwaway MariaDB
 * loaded with the public fixture. Set CONSOLE_SCREENSHOTS=1 to refresh docs/console-*.png.
 */
import { describe, expect, it } from 'vitest';
import { GATEWAY_RESPONSES } from '#shared/gateway-responses';
import {
  FORK_SECRETS,
  reviewChannel,
  SECRET_SETTINGS,
  seedChannels,
  settingsWithForkSecrets,
  settingsWithSecrets,
} from '#test/integration/channel-review.helpers';
import {
  activeLabel,
  expectCleanRun,
  expectNoSecretsKept,
  previewImport,
  resetChannels,
  runImport,
  screenshot,
  seriousA11yViolations,
  tableRows,
  useConsoleWorld,
} from './console.helpers.ts';

const { world, open, openSignedIn } = useConsoleWorld();

describe('the admin key', () => {
  it("shows the API's message for a wrong key and keeps nothing: no storage, no field value, no data", async () => {
    await resetChannels(world);
    const { page, recorder } = await open();

    await page.getByLabel('Admin key of the channel proxy API').fill('wrong-admin-key-0123456789abcdef0123456789');
    await page.getByRole('button', { name: 'Use this key' }).click();

    await expect
      .poll(() => page.locator('#key-error').textContent())
      .toBe(GATEWAY_RESPONSES.proxy.ACCESS_DENIED.body.message);
    expect(await page.evaluate('JSON.stringify({ ...sessionStorage })')).toBe('{}');
    expect(await page.getByLabel('Admin key of the channel proxy API').inputValue()).toBe('');
    expect(await page.locator('#channels-section').isHidden()).toBe(true);
    expect(await world.server.countItems('channels')).toBe(21);
    expectCleanRun(world, recorder);
    await expectNoSecretsKept(world, page, recorder);
  });

  it('keeps the pasted key in sessionStorage only, survives a reload of the tab, and forgets it on request', async () => {
    await resetChannels(world);
    const { page, recorder } = await openSignedIn();
    const stored = await page.evaluate('JSON.stringify({ ...sessionStorage })');
    await page.reload();
    await page
      .locator('#page-info')
      .filter({ hasText: /21 channels/ })
      .waitFor();
    await page.getByRole('button', { name: 'Forget the key' }).click();

    expect(stored).toContain(world.server.credentials.adminKey);
    expect(await page.evaluate('JSON.stringify({ ...sessionStorage })')).toBe('{}');
    expect(await page.locator('#channels-body tr').count()).toBe(0);
    expectCleanRun(world, recorder);
    await expectNoSecretsKept(world, page, recorder);
  });
});

describe('import with a preview', () => {
  it('previews the fixture: counts, each skipped row with its reason, each warning with its legacy id; writes nothing', async () => {
    await resetChannels(world, false);
    const { page, recorder } = await openSignedIn();

    await previewImport(page, world.dsn);

    const counts = await page.locator('#report-counts').innerText();
    expect(counts.replace(/\s+/g, ' ')).toContain(
      'Rows read 20 Rows to import 18 Rows skipped 2 Channels to create 21 Channels to update 0 Channels unchanged 0',
    );
    const skipped = page.getByRole('table', { name: /Skipped rows/ });
    expect(await skipped.locator('tbody tr').allInnerTexts()).toEqual([
      '17\tunknown legacy channel type 999',
      '19\tidentical to legacy channel 1',
    ]);
    const warnings = await page
      .getByRole('table', { name: /Rows with warnings/ })
      .locator('tbody tr')
      .allInnerTexts();
    expect(warnings).toContain('12\tmodel mapping not imported');
    expect(warnings).toContain('16\tno models');
    expect(await page.getByLabel("DSN of the legacy gateway's MySQL or PostgreSQL database").inputValue()).toBe('');
    expect(await world.server.countItems('channels')).toBe(0);
    await screenshot(page.locator('#import-section'), 'console-preview.png');
    expectCleanRun(world, recorder);
    await expectNoSecretsKept(world, page, recorder);
  });

  it('imports for real after the preview, shows the same report, and the table then holds the 21 channels', async () => {
    await resetChannels(world, false);
    const { page, recorder } = await openSignedIn();
    await previewImport(page, world.dsn);

    await runImport(page);

    const counts = (await page.locator('#report-counts').innerText()).replace(/\s+/g, ' ');
    expect(counts).toContain('Rows imported 18 Rows skipped 2 Channels created 21');
    expect(
      await page
        .getByRole('table', { name: /Skipped rows/ })
        .locator('tbody tr')
        .count(),
    ).toBe(2);
    expect(await world.server.countItems('channels')).toBe(21);
    expect(await page.getByRole('button', { name: 'Import', exact: true }).isHidden()).toBe(true);
    await screenshot(page.locator('#import-section'), 'console-report.png');
    expectCleanRun(world, recorder);
    await expectNoSecretsKept(world, page, recorder);
  });

  it("shows the API's message for a DSN the import refuses, and forgets the DSN", async () => {
    await resetChannels(world, false);
    const { page, recorder } = await openSignedIn();

    await page
      .getByLabel("DSN of the legacy gateway's MySQL or PostgreSQL database")
      .fill(`${world.dsn}&allowAllFiles=true`);
    await page.getByRole('button', { name: 'Preview import' }).click();

    await expect.poll(() => page.locator('#import-error').textContent()).toMatch(/allowAllFiles/);
    expect(await page.locator('#report').isHidden()).toBe(true);
    expect(await world.server.countItems('channels')).toBe(0);
    expectCleanRun(world, recorder);
    await expectNoSecretsKept(world, page, recorder);
  });
});

describe('review and fix', () => {
  it('shows masked keys, filters by provider and by keyword, and pages through', async () => {
    await resetChannels(world);
    const { page, recorder } = await openSignedIn();
    await screenshot(page.locator('#channels-section'), 'console-channels.png');

    const firstPage = await tableRows(page);
    expect(firstPage).toHaveLength(10);
    expect(firstPage[0]).toMatch(
      /^qwen \| ali \| https:\/\/dashscope\.aliyuncs\.com \| qwen-turbo, .* \| sk-…0007 \| enabled$/,
    );
    expect(await page.locator('#page-info').innerText()).toBe('Page 1 of 3 · 21 channels');

    await page.getByRole('button', { name: 'Next page' }).click();
    await page.locator('#page-info').filter({ hasText: 'Page 2 of 3' }).waitFor();
    const secondPage = await tableRows(page);
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.locator('#page-info').filter({ hasText: 'Page 3 of 3' }).waitFor();
    const thirdPage = await tableRows(page);
    expect(new Set([...firstPage, ...secondPage, ...thirdPage]).size).toBe(21);
    expect(await page.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);

    await page.getByLabel('Provider').fill('openai');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.locator('#page-info').filter({ hasText: 'Page 1 of 1 · 4 channels' }).waitFor();
    expect((await tableRows(page)).every((row) => row.split(' | ')[1] === 'openai')).toBe(true);

    await page.getByLabel('Provider').fill('');
    await page.getByLabel('Keyword').fill('CLAUDE');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.locator('#page-info').filter({ hasText: 'Page 1 of 1 · 3 channels' }).waitFor();
    // The keyword matches names, base URLs, providers and models, in any case.
    expect((await tableRows(page)).map((row) => row.split(' | ')[0]).sort()).toEqual([
      'bedrock-claude',
      'claude-disabled-by-admin',
      'vertex',
    ]);
    expectCleanRun(world, recorder);
    await expectNoSecretsKept(world, page, recorder);
  });

  it('edits a channel with the keyboard only: the dialog keeps focus, saves the models, marks the row edited and gives focus back', async () => {
    await resetChannels(world);
    const { page, recorder } = await openSignedIn();
    await page.getByLabel('Provider').fill('gemini');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.locator('#page-info').filter({ hasText: 'Page 1 of 1 · 1 channel' }).waitFor();
    await page.evaluate('document.activeElement.blur()');

    // Tab from the top of the page to the row's Edit button, then open the dialog with Enter.
    let label = '';
    for (let i = 0; i < 60 && label !== 'Edit gemini'; i++) {
      await page.keyboard.press('Tab');
      label = await activeLabel(page);
    }
    expect(label).toBe('Edit gemini');
    await page.keyboard.press('Enter');
    await page.getByRole('dialog', { name: 'Edit gemini' }).waitFor();
    expect(await activeLabel(page)).toBe('edit-name');

    await page.keyboard.press('Tab'); // base URL
    await page.keyboard.press('Tab'); // models
    expect(await activeLabel(page)).toBe('edit-models');
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type('gemini-2.0-flash\ngemini-1.5-pro');

    // Twice round the dialog: focus stays in the modal dialog (or leaves the document for the browser's
    // own controls), never on the page behind it; then on to Save.
    const outside: string[] = [];
    const visited = new Set<string>();
    for (let i = 0; i < 16; i++) {
      await page.keyboard.press('Tab');
      const where = await page.evaluate<string>(
        "(() => { const e = document.activeElement; return !e || e === document.body || e.closest('#edit-dialog') ? 'inside' : e.outerHTML.slice(0, 80) })()",
      );
      if (where !== 'inside') outside.push(where);
      visited.add(await activeLabel(page));
    }
    expect(outside).toEqual([]);
    expect([...visited]).toEqual(
      expect.arrayContaining(['edit-name', 'edit-models', 'edit-key', 'Save', 'edit-cancel']),
    );
    for (let i = 0; i < 10 && (await activeLabel(page)) !== 'Save'; i++) await page.keyboard.press('Tab');
    expect(await activeLabel(page)).toBe('Save');
    await page.keyboard.press('Enter');
    await page.getByRole('dialog').waitFor({ state: 'hidden' });
    await page.locator('#channels-body .badge').waitFor();

    expect(await tableRows(page)).toEqual([
      'gemini edited | gemini | https://generativelanguage.googleapis.com | gemini-2.0-flash, gemini-1.5-pro | AIz…0008 | enabled',
    ]);
    expect(await activeLabel(page)).toBe('Edit gemini');
    expect(await page.locator('#channels-status').innerText()).toBe('Saved gemini.');
    expectCleanRun(world, recorder);
    await expectNoSecretsKept(world, page, recorder);
  });

  it('edits settings with the keyboard: model mapping as pairs of names, secrets shown masked and kept', async () => {
    await resetChannels(world, false);
    const seeded = reviewChannel(1, { name: 'azure-eu', provider: 'azure', settings: settingsWithSecrets() });
    await seedChannels(world.server, [seeded]);
    const { page, recorder } = await openSignedIn();
    expect(await page.locator('#channels-body td[data-label="Settings"]').innerText()).toBe(
      '2 model mappings; priority 10; weight 3; groups default, vip; tag, API version, region, proxy, headers, parameters, status codes, other',
    );
    await page.evaluate('document.activeElement.blur()');
    const tabTo = async (target: string, limit = 80) => {
      for (let i = 0; i < limit && (await activeLabel(page)) !== target; i++) await page.keyboard.press('Tab');
      expect(await activeLabel(page)).toBe(target);
    };

    await tabTo('Edit azure-eu');
    await page.keyboard.press('Enter');
    await page.getByRole('dialog', { name: 'Edit azure-eu' }).waitFor();
    await tabTo('Settings');
    await page.keyboard.press('Enter');
    await page.getByLabel('Requested model 1').waitFor();
    expect(await page.getByLabel('Header override (JSON)').inputValue()).toContain('"Authorization": "Bea\u2026Rt4Y"');
    await screenshot(page.locator('#edit-dialog'), 'console-settings.png');
    // A third pair, added with the keyboard.
    await tabTo('edit-mapping-add');
    await page.keyboard.press('Enter');
    expect(await activeLabel(page)).toBe('Requested model 3');
    await page.keyboard.type('claude-3');
    await page.keyboard.press('Tab');
    await page.keyboard.type('claude-3-5-sonnet');
    // The second pair removed: focus moves on to the row that took its place.
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Shift+Tab');
    expect(await activeLabel(page)).toBe('Remove mapping 2');
    await page.keyboard.press('Enter');
    expect(await activeLabel(page)).toBe('Requested model 2');
    await tabTo('edit-priority');
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type('20');
    await tabTo('Save');
    await page.keyboard.press('Enter');
    await page.getByRole('dialog').waitFor({ state: 'hidden' });
    await page.locator('#channels-body .badge').waitFor();

    const [stored] = await world.channels.scan();
    expect(stored?.settings).toEqual({
      ...settingsWithSecrets(),
      modelMapping: { 'gpt-4': 'gpt-4o', 'claude-3': 'claude-3-5-sonnet' },
      priority: 20,
    });
    expect(await activeLabel(page)).toBe('Edit azure-eu');
    expectCleanRun(world, recorder);
    await expectNoSecretsKept(world, page, recorder, [
      ...Object.values(SECRET_SETTINGS),
      JSON.stringify(SECRET_SETTINGS.privateKey).slice(1, -1),
      seeded.key,
    ]);
  });

  it('shows every secret the forks store masked in the settings editor, and keeps each one when saved', async () => {
    await resetChannels(world, false);
    const seeded = reviewChannel(1, { name: 'fork-secrets', settings: settingsWithForkSecrets() });
    await seedChannels(world.server, [seeded]);
    const { page, recorder } = await openSignedIn();

    await page.getByRole('button', { name: 'Edit fork-secrets' }).click();
    await page.getByRole('dialog', { name: 'Edit fork-secrets' }).waitFor();
    await page.locator('#edit-settings summary').click();
    const headers = await page.getByLabel('Header override (JSON)').inputValue();
    // A header added beside the masked ones: the whole object, masks included, is sent back.
    await page
      .getByLabel('Header override (JSON)')
      .fill(JSON.stringify({ ...JSON.parse(headers), 'X-New': 'added' }, null, 2));
    await page.getByRole('dialog', { name: 'Edit fork-secrets' }).getByRole('button', { name: 'Save' }).click();
    await page.getByRole('dialog').waitFor({ state: 'hidden' });

    expect(headers).toContain('"X-Team": "platform"');
    expect(headers).toContain('"X-Upstream": "Bea\u20267Ui0"');
    const [stored] = await world.channels.scan();
    const forks = settingsWithForkSecrets();
    expect(stored?.settings).toEqual({ ...forks, headerOverride: { ...forks.headerOverride, 'X-New': 'added' } });
    expectCleanRun(world, recorder);
    await expectNoSecretsKept(world, page, recorder, [...Object.values(FORK_SECRETS), seeded.key]);
  });

  it('closes the edit dialog with Escape without saving and returns focus to its Edit button', async () => {
    await resetChannels(world);
    const { page } = await openSignedIn();
    const edit = page.getByRole('button', { name: 'Edit qwen' });

    await edit.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('dialog', { name: 'Edit qwen' }).waitFor();
    await page.keyboard.type('changed');
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'hidden' });

    expect(await activeLabel(page)).toBe('Edit qwen');
    expect(await page.locator('#channels-body .badge').count()).toBe(0);
  });

  it("shows the API's message inside the dialog when an edit is refused, and saves nothing", async () => {
    await resetChannels(world);
    const { page, recorder } = await openSignedIn();
    await page.getByRole('button', { name: 'Edit qwen' }).click();

    await page.getByLabel('Base URL').fill('ftp://not-http.example.com');
    await page.getByRole('button', { name: 'Save' }).click();

    await expect.poll(() => page.locator('#edit-error').textContent()).toMatch(/baseUrl/);
    expect(await page.getByRole('dialog', { name: 'Edit qwen' }).isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Cancel' }).first().click();
    expect(await page.locator('#channels-body .badge').count()).toBe(0);
    expectCleanRun(world, recorder);
  });

  it('deletes one channel only after confirmation, and nothing when the confirmation is cancelled', async () => {
    await resetChannels(world);
    const { page, recorder } = await openSignedIn();

    await page.getByRole('button', { name: 'Delete qwen' }).click();
    await page.getByRole('dialog', { name: 'Delete qwen?' }).waitFor();
    expect(await activeLabel(page)).toBe('confirm-cancel');
    await page.keyboard.press('Enter');
    await page.getByRole('dialog').waitFor({ state: 'hidden' });
    expect(await world.server.countItems('channels')).toBe(21);

    await page.getByRole('button', { name: 'Delete qwen' }).click();
    await page.getByRole('dialog', { name: 'Delete qwen?' }).getByRole('button', { name: 'Delete' }).click();
    await page.locator('#page-info').filter({ hasText: '20 channels' }).waitFor();

    expect(await world.server.countItems('channels')).toBe(20);
    expect(await page.getByRole('button', { name: 'Delete qwen' }).count()).toBe(0);
    expect(await page.locator('#channels-status').innerText()).toBe('Deleted qwen.');
    expectCleanRun(world, recorder);
    await expectNoSecretsKept(world, page, recorder);
  });

  it('selects several channels and deletes them together after confirmation', async () => {
    await resetChannels(world);
    const { page, recorder } = await openSignedIn();

    await page.getByLabel('Per page').selectOption('25');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.locator('#page-info').filter({ hasText: 'Page 1 of 1 · 21 channels' }).waitFor();
    for (const name of ['deepseek-pool', 'deepseek-pool #2', 'deepseek-pool #3']) {
      await page.getByRole('checkbox', { name: `Select ${name}`, exact: true }).check();
    }
    await page.getByRole('button', { name: 'Delete selected (3)' }).click();
    await page.getByRole('dialog', { name: 'Delete 3 channels?' }).getByRole('button', { name: 'Delete' }).click();
    await page.locator('#page-info').filter({ hasText: '18 channels' }).waitFor();

    expect(await page.locator('#channels-status').innerText()).toBe('Deleted 3 channels.');
    expect(await world.server.countItems('channels')).toBe(18);
    expect((await tableRows(page)).some((row) => row.startsWith('deepseek'))).toBe(false);
    expect(await page.getByRole('button', { name: 'Delete selected' }).isDisabled()).toBe(true);
    expectCleanRun(world, recorder);
    await expectNoSecretsKept(world, page, recorder);
  });

  it('has no serious or critical accessibility violation with the report, the table and each dialog open', async () => {
    await resetChannels(world, false);
    const { page, recorder } = await openSignedIn();
    await previewImport(page, world.dsn);
    await runImport(page);

    const withTable = await seriousA11yViolations(page);
    await page.getByRole('button', { name: 'Edit qwen' }).click();
    const withEditDialog = await seriousA11yViolations(page);
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Delete qwen' }).click();
    const withConfirmDialog = await seriousA11yViolations(page);

    expect({ withTable, withEditDialog, withConfirmDialog }).toEqual({
      withTable: [],
      withEditDialog: [],
      withConfirmDialog: [],
    });
    expectCleanRun(world, recorder);
  });

  it('is usable at 360 px wide: no sideways scrolling, every row readable, the edit dialog fits', async () => {
    await resetChannels(world);
    const { page, recorder } = await openSignedIn({ width: 360, height: 740 });

    const pageWidth = await page.evaluate('document.documentElement.scrollWidth');
    const firstRow = await page.locator('#channels-body tr').first().boundingBox();
    await page.getByRole('button', { name: 'Edit qwen' }).click();
    const dialog = await page.getByRole('dialog', { name: 'Edit qwen' }).boundingBox();

    expect(pageWidth).toBeLessThanOrEqual(360);
    expect(firstRow?.width).toBeLessThanOrEqual(360);
    expect((dialog?.x ?? -1) >= 0 && (dialog?.x ?? 0) + (dialog?.width ?? 999) <= 360).toBe(true);
    expect(await seriousA11yViolations(page)).toEqual([]);
    expectCleanRun(world, recorder);
  });
});
