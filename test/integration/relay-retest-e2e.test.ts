import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readLocalCredentials } from '#shared/local-credentials';
import type { ChannelView } from '#shared/schemas/channels';
import { type FakeUpstream, startFakeAnthropic, startFakeAzure, startFakeOpenAi } from '#test/support/fake-upstreams';
import { startMariaDb, type TestMariaDb } from '#test/support/mariadb';
import { type Started, useNpmStart } from '#test/support/npm-start';
import { relayFixtureSql } from '#test/support/relay-world';
import { runTokensCli } from '../../scripts/tokens/cli.ts';

/*
 * The re-test schedule under `npm start` (docs/relay.md, "Re-test"): two channels auto-disabled by the relay after
 * repeated invalid-key answers; the upstream of one recovers, the other's does not. The timer (every second here) enables
 * the first again and leaves the second disabled, both visible through the review API.
 */

const AZURE_KEY = 'azure-fixture-relay-key-0002-bbbbbbbbbbbbbbbbbbbbbbbb';
const OPENAI_KEY = 'sk-fixture-relay-openai-0001-aaaaaaaaaaaaaaaaaaaaaaaa';

const npm = useNpmStart({ stopAfter: 'file' });
let mariadb: TestMariaDb;
let openai: FakeUpstream;
let azure: FakeUpstream;
let others: FakeUpstream[];
let server: Started;
let adminKey: string;
let relayKey: string;

const admin = async (method: string, path: string) => {
  const res = await fetch(`${server.url}${path}`, { method, headers: { Authorization: `Bearer ${adminKey}` } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: unknown }).data;
};
const channelNamed = async (name: string): Promise<ChannelView> => {
  const { channels } = (await admin('GET', `/api/channels?per_page=100`)) as { channels: ChannelView[] };
  const id = channels.find((c) => c.name === name)?.id as string;
  return (await admin('GET', `/api/channel/${id}`)) as ChannelView;
};
const chat = (model: string) =>
  fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${relayKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'Hi' }] }),
  });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await sleep(200);
  }
}

beforeAll(async () => {
  let faulty: FakeUpstream;
  let anthropic: FakeUpstream;
  [mariadb, openai, azure, faulty, anthropic] = await Promise.all([
    startMariaDb(),
    startFakeOpenAi({ key: OPENAI_KEY }),
    startFakeAzure({ key: AZURE_KEY }),
    startFakeOpenAi(),
    startFakeAnthropic(),
  ]);
  others = [faulty, anthropic];
  const sql = relayFixtureSql({ faulty: faulty.url, openai: openai.url, azure: azure.url, anthropic: anthropic.url });
  const database = await mariadb.createDatabase(undefined, sql);
  const dataDir = npm.newDataDir();
  server = await npm.start({
    DATA_DIR: dataDir,
    RELAY_ALLOWED_HOSTS: '127.0.0.1',
    LOG_LEVEL: 'INFO',
    RELAY_RETEST_INTERVAL_SECONDS: '1',
  });
  adminKey = (await readLocalCredentials(join(dataDir, 'credentials.json'))).adminKey;
  const imported = await fetch(`${server.url}/api/channels/import/legacygw`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${adminKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ dsn: mariadb.dsn(database) }),
  });
  expect(imported.status).toBe(200);
  const stdout: string[] = [];
  await runTokensCli(['relay', 'create', '--name', 'retest'], {
    stdout: (line) => stdout.push(line),
    stderr: () => {},
    env: { DATA_DIR: dataDir },
  });
  relayKey = (JSON.parse(stdout.at(-1) ?? '{}') as { key: string }).key;
}, 180_000);

afterAll(async () => {
  await Promise.all([mariadb?.stop(), openai?.close(), azure?.close(), ...(others ?? []).map((o) => o.close())]);
});

describe('the re-test schedule under npm start', () => {
  it('enables again an auto-disabled channel whose upstream recovered, and leaves a failing one disabled', async () => {
    openai.faultAlways({ kind: 'invalid-key' });
    azure.faultAlways({ kind: 'invalid-key' });
    // Three invalid-key answers in a row auto-disable a channel (docs/relay.md, "Health").
    for (let i = 0; i < 3; i++) {
      expect((await chat('gpt-4o-mini')).status).toBe(401);
      expect((await chat('azure-gpt')).status).toBe(401);
    }
    await until(
      async () =>
        (await channelNamed('openai-main')).status === 'auto-disabled' &&
        (await channelNamed('azure-main')).status === 'auto-disabled',
      10_000,
    );

    openai.clearFaults();
    await until(async () => (await channelNamed('openai-main')).status === 'enabled', 15_000);
    await until(async () => (await channelNamed('azure-main')).lastRetest !== undefined, 15_000);

    const recovered = await channelNamed('openai-main');
    const failing = await channelNamed('azure-main');
    expect(recovered.statusReason).toBeUndefined();
    expect(Date.parse(recovered.statusChangedAt ?? '')).toBeGreaterThan(Date.now() - 60_000);
    expect(recovered.statusHistory).toEqual([
      {
        at: recovered.statusChangedAt,
        status: 'enabled',
        by: 'retest',
        note: expect.stringMatching(/^re-enabled by the re-test schedule: gpt-4o-mini answered 200 in \d+ ms \(was: /),
      },
    ]);
    expect(recovered.lastRetest).toMatchObject({ ok: true, status: 200 });
    expect(failing).toMatchObject({
      status: 'auto-disabled',
      statusReason: expect.stringContaining('invalid'),
      lastRetest: { ok: false, status: 401 },
    });
    expect(failing.statusHistory).toBeUndefined();
    // The re-test reached the upstreams with the channels' own keys; no key in any answer or the log.
    expect(JSON.stringify([recovered, failing])).not.toContain(AZURE_KEY);
    const log = server.output().slice(server.output().indexOf('listening on'));
    expect(log).toContain('Re-tested auto-disabled channels');
    for (const secret of [AZURE_KEY, OPENAI_KEY, relayKey.slice(3), adminKey]) expect(log).not.toContain(secret);
  }, 60_000);
});
