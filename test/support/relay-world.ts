import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { readLocalCredentials } from '#shared/local-credentials';
import { type FakeUpstream, startFakeAnthropic, startFakeAzure, startFakeOpenAi } from '#test/support/fake-upstreams';
import { startMariaDb, type TestMariaDb } from '#test/support/mariadb';
import type { Started, useNpmStart } from '#test/support/npm-start';
import { runTokensCli } from '../../scripts/tokens/cli.ts';

/*
 * The relay's world as a user meets it (docs/relay.md), for the end-to-end tests: fake upstreams per protocol, the
 * relay fixture (a One API `channels` table, test/fixtures/relay-channels.sql) in a throwaway MariaDB with its base URLs
 * at those fakes, `npm start` with loopback allowed, the channels imported through the admin API, and relay keys made
 * with `npm run tokens -- relay create`.
 */

const FIXTURE = resolve(import.meta.dirname, '../fixtures/relay-channels.sql');

/** The fixture's channel keys (fake). */
export const RELAY_FIXTURE_KEYS = {
  openai: 'sk-fixture-relay-openai-0001-aaaaaaaaaaaaaaaaaaaaaaaa',
  azure: 'azure-fixture-relay-key-0002-bbbbbbbbbbbbbbbbbbbbbbbb',
  anthropic: 'sk-ant-fixture-relay-0003-cccccccccccccccccccccccc',
  faulty: 'sk-fixture-relay-faulty-0004-dddddddddddddddddddddddd',
};

export interface RelayWorld {
  readonly mariadb: TestMariaDb;
  readonly openai: FakeUpstream;
  /** The higher tier of the failover pair. */
  readonly faulty: FakeUpstream;
  readonly azure: FakeUpstream;
  readonly anthropic: FakeUpstream;
  readonly server: Started;
  readonly dataDir: string;
  readonly adminKey: string;
  /** `npm run tokens -- relay <argv>` against this server's data; its last JSON line. */
  tokens(...argv: string[]): Promise<Record<string, string>>;
  close(): Promise<void>;
}

/** The relay fixture with its base URLs at the fakes' (and one at the metadata address, which no request may reach). */
export function relayFixtureSql(urls: { faulty: string; openai: string; azure: string; anthropic: string }): string {
  return readFileSync(FIXTURE, 'utf8')
    .replaceAll('{{OPENAI_FAULTY}}', urls.faulty)
    .replaceAll('{{OPENAI}}', urls.openai)
    .replaceAll('{{AZURE}}', urls.azure)
    .replaceAll('{{ANTHROPIC}}', urls.anthropic)
    .replaceAll('{{METADATA}}', 'http://169.254.169.254');
}

/** Starts the world; `eventGapMs` paces the OpenAI and Anthropic fakes' stream events. */
export async function startRelayWorld(
  npm: ReturnType<typeof useNpmStart>,
  eventGapMs: { openai: number; anthropic: number },
): Promise<RelayWorld> {
  const [mariadb, openai, faulty, azure, anthropic] = await Promise.all([
    startMariaDb(),
    startFakeOpenAi({ reportModel: 'gpt-4o-mini-2024-07-18', eventGapMs: eventGapMs.openai }),
    startFakeOpenAi(),
    startFakeAzure({ key: RELAY_FIXTURE_KEYS.azure }),
    startFakeAnthropic({ key: RELAY_FIXTURE_KEYS.anthropic, eventGapMs: eventGapMs.anthropic }),
  ]);
  const sql = relayFixtureSql({ faulty: faulty.url, openai: openai.url, azure: azure.url, anthropic: anthropic.url });
  const database = await mariadb.createDatabase(undefined, sql);
  const dataDir = npm.newDataDir();
  // The fake upstreams listen on loopback, which a channel may reach only when the operator lists it.
  const server = await npm.start({ DATA_DIR: dataDir, RELAY_ALLOWED_HOSTS: '127.0.0.1', LOG_LEVEL: 'INFO' });
  const { adminKey } = await readLocalCredentials(join(dataDir, 'credentials.json'));
  const imported = await fetch(`${server.url}/api/channels/import/legacygw`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${adminKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ dsn: mariadb.dsn(database) }),
  });
  expect(imported.status).toBe(200);
  expect(((await imported.json()) as { data: { channels: { created: number } } }).data.channels.created).toBe(10);
  return {
    mariadb,
    openai,
    faulty,
    azure,
    anthropic,
    server,
    dataDir,
    adminKey,
    async tokens(...argv) {
      const stdout: string[] = [];
      const code = await runTokensCli(['relay', ...argv], {
        stdout: (line) => stdout.push(line),
        stderr: () => {},
        env: { DATA_DIR: dataDir },
      });
      expect(code).toBe(0);
      return JSON.parse(stdout.at(-1) ?? '{}') as Record<string, string>;
    },
    async close() {
      await Promise.all([mariadb.stop(), openai.close(), faulty.close(), azure.close(), anthropic.close()]);
    },
  };
}

/**
 * The test file's relay world: started before its tests (then `ready` runs with it) and closed after. Read its parts
 * from the tests on (each read goes to the world its beforeAll started).
 */
export function useRelayWorld(
  npm: ReturnType<typeof useNpmStart>,
  eventGapMs: { openai: number; anthropic: number },
  ready: (world: RelayWorld) => Promise<void> = async () => {},
): RelayWorld {
  let world: RelayWorld | undefined;
  beforeAll(async () => {
    world = await startRelayWorld(npm, eventGapMs);
    await ready(world);
  }, 180_000);
  afterAll(async () => {
    await world?.close();
  });
  return new Proxy({} as RelayWorld, {
    get: (_target, name) => {
      if (!world) throw new Error('The relay world is not started');
      return Reflect.get(world, name);
    },
  });
}
