/**
 * Smaller holes of the console (docs/console.md), in Chromium against the local server: the page opened as
 * `/console/` signs in, and names holding right-to-left overrides or other invisible characters are shown
 * with visible markers, each in its own bidi isolate, in the table and in the delete dialog.
 * Set CONSOLE_SCREENSHOTS=1 to refresh docs/console-bidi.png.
 */
import { describe, expect, it } from 'vitest';
import { expectCleanRun, resetChannels, screenshot, signIn, useConsoleWorld } from './console.helpers.ts';

const files = useConsoleWorld();
const { world } = files;

// Reads as "…invoice-gpt4" in a plain table cell; its letters are in another order.
const SPOOFED = 'billing \u202E4tpg-eciovni\u202C';
// Zero-width space, word joiner and a tag character: each invisible in plain text.
const HIDDEN = 'ops\u200Bkey\u2060\u{E0041}';
// Any character that hides or reorders text (but the page template's own line breaks and indentation).
const CONTROL = /(?![\t\n\r])[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

async function rename(id: string, name: string): Promise<void> {
  const res = await fetch(`${world.server.url}/api/channel/${id}`, {
    method: 'PUT',
    headers: { Authorization: `Bearer ${world.server.credentials.adminKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name }),
  });
  expect(res.status).toBe(200);
}

describe('the console', () => {
  it('signs in and loads the table when opened as /console/ (with the trailing slash)', async () => {
    await resetChannels(world);
    const page = await files.newPage();
    const response = await page.goto(`${world.server.url}/console/`);
    expect(response?.status()).toBe(200);

    await signIn(page, world.server.credentials.adminKey);

    expect(await page.locator('#channels-body tr[data-id]').count()).toBeGreaterThan(0);
    expect(await page.locator('#key-error').textContent()).toBe('');
  });

  it('shows right-to-left overrides and invisible characters in names as markers, each name isolated', async () => {
    await resetChannels(world);
    const [first, second] = (await world.channels.scan()).sort((a, b) => a.id.localeCompare(b.id));
    await rename(first!.id, SPOOFED);
    await rename(second!.id, HIDDEN);
    const { page, recorder } = await files.openSignedIn();
    await page.getByLabel('Keyword').fill('billing');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    const spoofedRow = page.locator('#channels-body tr[data-id]', { hasText: 'billing' });
    await spoofedRow.waitFor();

    const nameCell = spoofedRow.locator('td[data-label="Name"] bdi');
    expect(await nameCell.textContent()).toBe('billing ⟨U+202E⟩4tpg-eciovni⟨U+202C⟩');
    expect(await spoofedRow.getByRole('button', { name: /^Delete / }).getAttribute('aria-label')).toBe(
      'Delete billing ⟨U+202E⟩4tpg-eciovni⟨U+202C⟩',
    );
    await screenshot(page.locator('#channels-section'), 'console-bidi.png');

    await spoofedRow.getByRole('button', { name: /^Delete / }).click();
    const dialog = page.locator('#confirm-dialog');
    await dialog.waitFor();
    expect(await page.locator('#confirm-heading').textContent()).toBe('Delete billing ⟨U+202E⟩4tpg-eciovni⟨U+202C⟩?');
    expect(await page.locator('#confirm-text bdi').first().textContent()).toBe('billing ⟨U+202E⟩4tpg-eciovni⟨U+202C⟩');
    expect(CONTROL.test((await dialog.textContent()) ?? '')).toBe(false);
    await page.getByRole('button', { name: 'Cancel' }).click();

    await page.getByLabel('Keyword').fill('ops');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    const hiddenName = page.locator('#channels-body tr[data-id] td[data-label="Name"] bdi', { hasText: 'ops' });
    await hiddenName.waitFor();
    expect(await hiddenName.textContent()).toBe('ops⟨U+200B⟩key⟨U+2060⟩⟨U+E0041⟩');
    // Nothing in the table can hide or reorder text any more.
    expect(CONTROL.test((await page.locator('#channels-body').textContent()) ?? '')).toBe(false);
    expectCleanRun(world, recorder);
  });
});
