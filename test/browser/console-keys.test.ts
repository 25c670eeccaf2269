/**
 * The console's Keys section in a real browser (Debian's Chromium, headless, playwright-core) against the local
 * server: create a relay key from the keyboard, see it whole once, dismiss it, and prove that no whole key is left in
 * the DOM, its fields or any storage; edit, disable and delete a key; at desktop width and at 390 px. Set
 * CONSOLE_SCREENSHOTS=1 to refresh docs/console-keys.png.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { LOCAL_RELAY_KEY_MAX_AGE_MS } from '#infra/local/backend';
import { pageStores } from '#test/support/browser';
import { activeLabel, expectCleanRun, screenshot, seriousA11yViolations, useConsoleWorld } from './console.helpers.ts';

const { world, openSignedIn } = useConsoleWorld();

async function tabTo(page: Page, target: string, limit = 200): Promise<void> {
  for (let i = 0; i < limit && (await activeLabel(page)) !== target; i++) await page.keyboard.press('Tab');
  expect(await activeLabel(page)).toBe(target);
}

/** The relay API's status for `GET /v1/models` with this key. */
async function relayStatus(key: string): Promise<number> {
  const response = await fetch(`${world.server.url}/v1/models`, { headers: { Authorization: `Bearer ${key}` } });
  await response.text();
  return response.status;
}

/** Waits until the relay answers `status` for this key (npm start reuses a found key for LOCAL_RELAY_KEY_MAX_AGE_MS). */
async function expectRelayStatus(key: string, status: number): Promise<void> {
  const deadline = Date.now() + LOCAL_RELAY_KEY_MAX_AGE_MS * 5;
  let last = await relayStatus(key);
  while (last !== status && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    last = await relayStatus(key);
  }
  expect(last).toBe(status);
}

/** Asserts that neither the key nor its 48 characters are in the page's DOM, field values, URL, cookies or storage. */
async function expectKeyGone(page: Page, key: string): Promise<void> {
  const { places, sessionStorage } = await pageStores(page);
  for (const secret of [key, key.slice(3)]) {
    for (const [place, text] of Object.entries(places)) expect(text, place).not.toContain(secret);
    expect(sessionStorage, 'sessionStorage').not.toContain(secret);
  }
}

/** Types a new key's name and submits with Enter; returns the whole key the panel shows. */
async function createFromKeyboard(page: Page, name: string, quota = ''): Promise<string> {
  await page.locator('#key-create-name').focus();
  await page.keyboard.type(name);
  if (quota !== '') await page.locator('#key-create-quota').fill(quota);
  await page.locator('#key-create-name').press('Enter');
  await page.locator('#key-new').waitFor({ state: 'visible' });
  await page
    .locator('#keys-body td[data-label="Name"]')
    .filter({ hasText: new RegExp(`^${name}$`) })
    .waitFor();
  return page.locator('#key-new-value').inputValue();
}

describe('relay keys at desktop width', () => {
  it('shows a new key whole once; after Done no whole key is in the DOM or storage, and the list masks it', async () => {
    const { page, recorder } = await openSignedIn();
    await page
      .locator('#keys-status')
      .filter({ hasText: /keys?\./ })
      .waitFor();

    const key = await createFromKeyboard(page, 'billing', '500000');

    expect(key).toMatch(/^sk-[A-Za-z0-9]{48}$/);
    expect(await activeLabel(page)).toBe('key-new-value');
    await expectRelayStatus(key, 200);
    // Never in an attribute, even while shown: only the field's value holds it.
    expect(await page.evaluate('document.documentElement.outerHTML')).not.toContain(key.slice(3));
    const row = page.locator('#keys-body tr', { has: page.locator('td', { hasText: /^billing$/ }) });
    expect(await row.locator('td[data-label="Key"]').innerText()).toMatch(/^sk-…[0-9a-f]{24}$/);
    expect(await row.locator('td[data-label="Quota"]').innerText()).toBe('500,000 left, 0 used');
    await screenshot(page.locator('#keys-section'), 'console-keys.png');
    expect(await seriousA11yViolations(page)).toEqual([]);

    await tabTo(page, 'key-new-done', 10);
    await page.keyboard.press('Enter');

    expect(await page.locator('#key-new').isHidden()).toBe(true);
    expect(await activeLabel(page)).toBe('keys-heading');
    await expectKeyGone(page, key);
    // A reload lists the key masked and shows it nowhere.
    await page.reload();
    await page
      .locator('#keys-body td[data-label="Name"]')
      .filter({ hasText: /^billing$/ })
      .waitFor();
    await expectKeyGone(page, key);
    expectCleanRun(world, recorder);
  });

  it('edits, disables and deletes a key with the keyboard; the relay follows', async () => {
    const { page, recorder } = await openSignedIn();
    const key = await createFromKeyboard(page, 'ops');
    await page.getByRole('button', { name: 'Done' }).click();

    await page.getByRole('button', { name: 'Edit ops' }).press('Enter');
    const dialog = page.getByRole('dialog', { name: /^Edit ops/ });
    await dialog.waitFor();
    await page.locator('#key-edit-models').fill('gpt-4o, gpt-4o-mini');
    await page.getByLabel('Remaining quota (empty: unlimited)').fill('1000');
    await page.getByLabel('Remaining quota (empty: unlimited)').press('Enter');
    await dialog.waitFor({ state: 'hidden' });
    const row = page.locator('#keys-body tr', { has: page.locator('td', { hasText: /^ops$/ }) });
    await row.locator('td[data-label="Models"]').filter({ hasText: 'gpt-4o, gpt-4o-mini' }).waitFor();
    expect(await row.locator('td[data-label="Quota"]').innerText()).toBe('1,000 left, 0 used');

    await page.getByRole('button', { name: 'Disable ops' }).press('Enter');
    await row.locator('td[data-label="Status"]').filter({ hasText: 'disabled (revoked)' }).waitFor();
    await expectRelayStatus(key, 401);
    await page.getByRole('button', { name: 'Enable ops' }).press('Enter');
    await row
      .locator('td[data-label="Status"]')
      .filter({ hasText: /^enabled$/ })
      .waitFor();
    await expectRelayStatus(key, 200);

    await page.getByRole('button', { name: 'Delete ops' }).press('Enter');
    await page.getByRole('dialog', { name: 'Delete this key?' }).waitFor();
    expect(await activeLabel(page)).toBe('confirm-cancel');
    await page.getByRole('button', { name: 'Delete', exact: true }).last().click();
    await row.waitFor({ state: 'detached' });
    await expectRelayStatus(key, 401);
    await expectKeyGone(page, key);
    expectCleanRun(world, recorder);
  });

  it('forgets a shown key when the admin key is forgotten', async () => {
    const { page } = await openSignedIn();
    const key = await createFromKeyboard(page, 'forgotten');

    await page.getByRole('button', { name: 'Forget the key' }).click();

    expect(await page.locator('#keys-section').isHidden()).toBe(true);
    await expectKeyGone(page, key);
  });
});

describe('relay keys at 390 px', () => {
  it('fit without sideways scrolling: the new key and the list as cards', async () => {
    const { page, recorder } = await openSignedIn({ width: 390, height: 844 });
    const key = await createFromKeyboard(page, 'phone');

    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    for (const right of await page
      .locator('#keys-section tr, #key-new')
      .evaluateAll((boxes) => boxes.map((box) => box.getBoundingClientRect().right))) {
      expect(right).toBeLessThanOrEqual(390);
    }
    expect(await seriousA11yViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Done' }).click();
    await expectKeyGone(page, key);
    expectCleanRun(world, recorder);
  });
});
