/**
 * The console's relay views in a real browser (Debian's Chromium, headless, playwright-core) against the local
 * server: the Usage view, the per-channel Test button, auto-disabled channels re-enabled from the edit dialog, and
 * the "not servable" mark; at desktop width and at 390 px, with the keyboard. Set CONSOLE_SCREENSHOTS=1 to refresh
 * docs/console-usage.png and docs/console-test.png.
 */
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { UsageRecord } from '#shared/relay/contract';
import { isServableProvider } from '#shared/relay/servable';
import type { StoredChannel } from '#shared/repositories/channels';
import { usageKeys } from '#shared/repositories/usage';
import { reviewChannel, seedChannels } from '#test/integration/channel-review.helpers';
import {
  activeLabel,
  expectCleanRun,
  expectNoSecretsKept,
  resetChannels,
  screenshot,
  seriousA11yViolations,
  useConsoleWorld,
} from './console.helpers.ts';

const { world, openSignedIn } = useConsoleWorld();

const REASON = '3 authentication failures in a row (401 invalid_api_key)';

/** Why the relay cannot serve `provider`, in the words of the module that decides. */
function notServable(provider: string): string {
  const servable = isServableProvider(provider);
  if (servable.servable) throw new Error(`${provider} is servable`);
  return servable.reason;
}

/** Three channels: one that serves, one the relay disabled, one whose provider the relay cannot serve. */
async function seedRelayChannels(): Promise<{ main: StoredChannel; disabled: StoredChannel; hunyuan: StoredChannel }> {
  await resetChannels(world, false);
  const main: StoredChannel = {
    ...reviewChannel(1, { name: 'openai-main', models: ['gpt-4o', 'gpt-4o-mini'] }),
    statusChangedAt: '2026-11-23T07:00:00.000Z',
    statusHistory: [{ at: '2026-11-23T07:00:00.000Z', status: 'enabled', by: 'retest', note: 're-enabled' }],
  };
  const disabled: StoredChannel = {
    ...reviewChannel(2, { name: 'openai-backup', status: 'auto-disabled' }),
    statusReason: REASON,
    statusChangedAt: '2026-11-24T08:00:00.000Z',
    lastRetest: { at: '2026-11-24T08:10:00.000Z', ok: false, status: 401, message: 'Incorrect API key provided' },
  };
  const hunyuan = reviewChannel(3, { name: 'hunyuan-pro', provider: 'tencent', models: ['claude-3-5-sonnet'] });
  await seedChannels(world.server, [main, disabled, hunyuan]);
  return { main, disabled, hunyuan };
}

/** Usage of 2026-11-23 and 24 on those channels, written as the relay's sink writes it. */
async function seedUsage(main: StoredChannel, backup: StoredChannel): Promise<void> {
  const record = (n: number, time: string, fields: Partial<UsageRecord> = {}): UsageRecord => ({
    requestId: `console-${n}`,
    time,
    keyId: 'key-console',
    group: 'default',
    endpoint: 'chat',
    requestedModel: 'gpt-4o',
    upstreamModel: 'gpt-4o-2024-08-06',
    channelId: main.id,
    attempts: [{ channelId: main.id, status: 200 }],
    status: 200,
    promptTokens: 100,
    completionTokens: 20,
    totalTokens: 120,
    firstByteMs: 200,
    durationMs: 900,
    stream: false,
    clientGone: false,
    ...fields,
  });
  const records = [
    record(1, '2026-11-23T09:00:00.000Z'),
    record(2, '2026-11-23T10:00:00.000Z', {
      attempts: [
        { channelId: backup.id, status: 401 },
        { channelId: main.id, status: 200 },
      ],
    }),
    // A stream whose upstream reported no usage: unknown, never zero.
    record(3, '2026-11-24T11:00:00.000Z', {
      requestedModel: 'gpt-4o-mini',
      stream: true,
      promptTokens: undefined,
      completionTokens: undefined,
      totalTokens: undefined,
    }),
    record(4, '2026-11-24T12:00:00.000Z', {
      status: 503,
      channelId: undefined,
      attempts: [{ channelId: backup.id, status: 401 }],
      promptTokens: undefined,
      completionTokens: undefined,
      totalTokens: undefined,
    }),
  ];
  const items = records.map((r) => ({ PutRequest: { Item: { ...r, ...usageKeys(r), expiresAt: 1_900_000_000 } } }));
  await world.server.documents.send(new BatchWriteCommand({ RequestItems: { [world.server.tables.usage]: items } }));
}

async function tabTo(page: Page, target: string, limit = 120): Promise<void> {
  for (let i = 0; i < limit && (await activeLabel(page)) !== target; i++) await page.keyboard.press('Tab');
  expect(await activeLabel(page)).toBe(target);
}

/** Fills the period (UTC dates) and submits with Enter, waiting for the figures. */
async function showUsage(page: Page): Promise<void> {
  await page.getByLabel('From (UTC date)').fill('2026-11-23');
  await page.getByLabel('To (UTC date, included)').fill('2026-11-24');
  await page.getByLabel('To (UTC date, included)').press('Enter');
  await page.locator('#usage-status').filter({ hasText: '4 requests' }).waitFor();
}

const cellTexts = (page: Page, caption: string) =>
  page
    .locator('#usage-body table', { has: page.locator('caption', { hasText: caption }) })
    .locator('tbody tr')
    .evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll('td')].map((td) => td.textContent ?? '')));

describe('the relay views at desktop width', () => {
  it('marks auto-disabled and not servable channels, tests a channel from the keyboard and re-enables one', async () => {
    const { disabled } = await seedRelayChannels();
    const { page, recorder } = await openSignedIn();

    const backupRow = page.locator(`#channels-body tr[data-id="${disabled.id}"]`);
    expect(await backupRow.locator('td[data-label="Status"]').innerText()).toBe(
      `auto-disabled ${REASON} (2026-11-24T08:00:00.000Z); last re-test 2026-11-24T08:10:00.000Z: HTTP 401 Incorrect API key provided`,
    );
    // A channel the re-test schedule enabled again says so.
    expect(
      await page
        .locator('#channels-body tr', { hasText: 'openai-main' })
        .locator('td[data-label="Status"]')
        .innerText(),
    ).toBe('enabled (re-enabled by the re-test, 2026-11-23T07:00:00.000Z)');
    expect(await page.locator('#channels-body td[data-label="Provider"]').allInnerTexts()).toEqual([
      'openai',
      'openai',
      'tencent not servable',
    ]);

    // Test: the result beside the button and in the status line that screen readers announce.
    await page.evaluate('document.activeElement.blur()');
    await tabTo(page, 'Test hunyuan-pro');
    await page.keyboard.press('Enter');
    const expected = `Failed: no answer, 0 ms, model claude-3-5-sonnet. ${notServable('tencent')}`;
    await page.locator('#channels-status').filter({ hasText: expected }).waitFor();
    expect(await page.locator('#channels-status').getAttribute('role')).toBe('status');
    expect(await page.locator('#channels-body .test-result:not(:empty)').allInnerTexts()).toEqual([expected]);
    expect(await activeLabel(page)).toBe('Test hunyuan-pro');
    await screenshot(page.locator('#channels-section'), 'console-test.png');

    // Re-enable from the edit dialog: the relay's reason is shown; Enabled is chosen with the keyboard.
    await tabTo(page, 'Edit openai-backup', 40);
    await page.keyboard.press('Enter');
    await page.getByRole('dialog', { name: 'Edit openai-backup' }).waitFor();
    expect(await page.locator('#edit-status-note').innerText()).toBe(
      `Disabled by the relay: ${REASON}. Choose Enabled to re-enable it.`,
    );
    expect(await page.locator('#edit-status').inputValue()).toBe('auto-disabled');
    await tabTo(page, 'edit-status', 10);
    await page.keyboard.press('Home');
    expect(await page.locator('#edit-status').inputValue()).toBe('enabled');
    await tabTo(page, 'Save', 60);
    await page.keyboard.press('Enter');
    await page.getByRole('dialog').waitFor({ state: 'hidden' });
    await backupRow
      .locator('td[data-label="Status"]')
      .filter({ hasText: /^enabled$/ })
      .waitFor();
    expect(await page.locator('#channels-status').innerText()).toBe('Saved openai-backup.');

    // An ordinary channel's dialog does not offer the relay's status.
    await page.getByRole('button', { name: 'Edit openai-main' }).click();
    await page.getByRole('dialog', { name: 'Edit openai-main' }).waitFor();
    expect(await page.locator('#edit-status-note').isHidden()).toBe(true);
    expect(await page.locator('#edit-status-auto').isDisabled()).toBe(true);
    expect(await seriousA11yViolations(page)).toEqual([]);
    await page.keyboard.press('Escape');

    expectCleanRun(world, recorder);
    await expectNoSecretsKept(world, page, recorder, [disabled.key]);
  });

  it('shows the usage of a chosen period per channel, per model and the newest requests', async () => {
    const { main, disabled } = await seedRelayChannels();
    await seedUsage(main, disabled);
    const { page, recorder } = await openSignedIn();

    await showUsage(page);

    const counts = await page.locator('#usage-body .counts div').allInnerTexts();
    expect(counts.map((c) => c.replace(/\s+/g, ' '))).toEqual([
      'Requests 4',
      'Errors 1',
      'Failovers 1',
      'Prompt tokens 200',
      'Completion tokens 40',
      'Total tokens 240',
      'Usage unknown 1',
    ]);
    // Most requests first; ties by channel id, the requests no channel answered first.
    const ties = [
      ['(none answered)', '1', '1', '0', '0 of 0', '0'],
      ['openai-backup', '0', '0', '0', '2 of 2', '0'],
    ];
    expect(await cellTexts(page, 'Per channel')).toEqual([
      ['openai-main', '3', '0', '1', '0 of 3', '240 (+1 unknown)'],
      ...ties,
    ]);
    expect(await cellTexts(page, 'Per model')).toEqual([
      ['gpt-4o', '3', '1', '1', '240'],
      ['gpt-4o-mini', '1', '0', '0', '0 (+1 unknown)'],
    ]);
    const newest = await cellTexts(page, 'Newest requests');
    expect(newest.map((row) => [row[0], row[2], row[3], row[4]])).toEqual([
      ['2026-11-24 12:00:00Z', '(none answered)', '503', 'none'],
      ['2026-11-24 11:00:00Z', 'openai-main', '200', 'unknown'],
      ['2026-11-23 10:00:00Z', 'openai-main', '200 after 2 attempts', '120'],
      ['2026-11-23 09:00:00Z', 'openai-main', '200', '120'],
    ]);
    expect(await seriousA11yViolations(page)).toEqual([]);
    await screenshot(page.locator('#usage-section'), 'console-usage.png');
    expectCleanRun(world, recorder);
  });

  it("shows the API's message for a period it refuses", async () => {
    await seedRelayChannels();
    const { page } = await openSignedIn();

    await page.getByLabel('From (UTC date)').fill('2026-01-01');
    await page.getByLabel('To (UTC date, included)').fill('2026-03-01');
    await page.getByRole('button', { name: 'Show usage' }).click();

    await page.locator('#usage-error').filter({ hasText: 'at most 31 days' }).waitFor();
    expect(await page.locator('#usage-error').getAttribute('role')).toBe('alert');
  });
});

describe('the relay views at 390 px', () => {
  it('fit without sideways scrolling: usage tables as cards, test results readable', async () => {
    const { main, disabled } = await seedRelayChannels();
    await seedUsage(main, disabled);
    const { page, recorder } = await openSignedIn({ width: 390, height: 844 });

    await page.getByRole('button', { name: 'Test hunyuan-pro' }).press('Enter');
    await page.locator('#channels-body .test-result:not(:empty)').waitFor();
    await showUsage(page);

    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    for (const box of await page
      .locator('#usage-body table tr')
      .evaluateAll((rows) => rows.map((row) => row.getBoundingClientRect().right))) {
      expect(box).toBeLessThanOrEqual(390);
    }
    expect(await page.locator('#usage-body td[data-label="Model"]').first().innerText()).toBe('gpt-4o');
    expect(await seriousA11yViolations(page)).toEqual([]);
    expectCleanRun(world, recorder);
  });
});
