import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ChannelView } from '#shared/channel-view';
import { secretParts } from '#shared/settings-secrets';
import { channelPath } from './channel-review.helpers.ts';
import {
  callImport,
  callProxy,
  type Exchange,
  expectData,
  expectNoSecrets,
  expectReport,
  useImportHarness,
} from './import-http.helpers.ts';

// docs/channel-review-api.md, "Settings": settings an operator edited survive every later import of the same gateway,
// even when the legacy row changes, and a masked secret sent back in the edit leaves the stored secret as it was.

const NEWAPI_NEWEST_SQL = readFileSync(new URL('../fixtures/newapi-newest-channels.sql', import.meta.url), 'utf8');

const { db, server, channels } = useImportHarness();

describe('edited settings survive re-imports', () => {
  it('keeps an edit of settings (model mapping, priority, a masked header sent back) through a changed legacy row', async () => {
    const database = await db.createDatabase(undefined, NEWAPI_NEWEST_SQL);
    await channels.clear();
    const exchanges: Exchange[] = [];
    const call = async (exchange: Promise<Exchange>) => {
      const done = await exchange;
      exchanges.push(done);
      return done;
    };
    const importOnce = async (dryRun: boolean) =>
      expectReport(await call(callImport(server, { json: { dsn: db.dsn(database), dryRun } })));

    const first = await importOnce(false);
    expect(first.channels.edited).toBe(0);
    const stored = await channels.scan();
    // The fixture's channel whose header override carries a credential (masked in every read).
    const withSecret = stored.find((c) => Object.keys(c.settings?.headerOverride ?? {}).length > 0);
    if (!withSecret?.settings?.headerOverride) throw new Error('the fixture has no channel with a header override');
    const secretHeaders = withSecret.settings.headerOverride;
    const secrets = secretParts(withSecret.settings).map((part) => String(part.value));
    expect(secrets.length).toBeGreaterThan(0);
    const view = expectData<ChannelView>(
      await call(callProxy(server, { method: 'GET', path: channelPath(withSecret.id) })),
    );
    expect(view.settings?.headerOverride).not.toEqual(secretHeaders);

    // The operator edits two settings and sends the header override back as read (masked).
    const edit = {
      settings: {
        modelMapping: { 'gpt-4o': 'reviewed-deployment' },
        priority: 7,
        headerOverride: view.settings?.headerOverride,
      },
    };
    const edited = expectData<ChannelView>(
      await call(callProxy(server, { method: 'PUT', path: channelPath(withSecret.id), json: edit })),
    );
    expect(edited.settings).toMatchObject({ modelMapping: { 'gpt-4o': 'reviewed-deployment' }, priority: 7 });
    const afterEdit = (await channels.scan()).find((c) => c.id === withSecret.id);
    expect(afterEdit?.settings?.headerOverride).toEqual(secretHeaders);

    // The legacy gateway changes the same row's priority and model mapping after the edit.
    const legacyId = withSecret.source.legacyId;
    await db.query(
      `UPDATE \`${database}\`.channels SET priority = 99, model_mapping = '{"gpt-4o":"upstream-changed"}' WHERE id = ${Number(legacyId)}`,
    );
    const beforeReimport = await channels.scan();

    const dry = await importOnce(true);
    expect(await channels.scan()).toEqual(beforeReimport);
    const again = await importOnce(false);

    expect(dry.channels).toEqual(again.channels);
    expect(again.channels.edited).toBe(1);
    expect(again.channels.created).toBe(0);
    const kept = (await channels.scan()).find((c) => c.id === withSecret.id);
    expect(kept).toEqual(afterEdit);
    expect(kept?.settings).toMatchObject({ modelMapping: { 'gpt-4o': 'reviewed-deployment' }, priority: 7 });
    expect(kept?.settings?.headerOverride).toEqual(secretHeaders);
    expectNoSecrets(exchanges, { server, mysqlPassword: db.password, extra: secrets });
  });
});
