import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BatchWriteCommand, DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FamilyKind } from '#functions/import-legacygw/families/family';
import { localDynamoClient } from '#infra/local/dynamo-engine';
import type { ImportReport } from '#shared/schemas/import-report';
import {
  ALL_KEYS,
  channelFixtureOf,
  type Engine,
  GATEWAYS,
  gatewaySql,
  gatewayStatements,
} from '#test/fixtures/tokens/gateway-tokens';
import { type FakeUpstream, startFakeOpenAi } from '#test/support/fake-upstreams';
import { startedInBeforeAll } from '#test/support/local-server';
import { startPostgres, type TestPostgres } from '#test/support/postgres';
import { sqliteFixtureBytes } from '#test/support/sqlite-fixtures';
import { useTempDir } from '#test/support/temp-dir';
import { runImportSqliteCli } from '../../scripts/import-sqlite/cli.ts';
import { callImport, type Exchange, expectNoSecrets, expectReport, useImportHarness } from './import-http.helpers.ts';

// docs/relay.md, "Keys carried over from the legacy gateway" (acceptance 1 of issue 37): a gateway of each family, on
// MariaDB, PostgreSQL and SQLite, with its tokens, users and options written from its GORM models
// (test/fixtures/tokens/gateway-tokens.ts). After the import, each legacy key is used with OpenAI's official SDK against
// /v1, and the relay accepts it exactly where the legacy gateway would have, in the right group.

const { db, server, channels } = useImportHarness({ RELAY_ALLOWED_HOSTS: '127.0.0.1' });
const dir = useTempDir('legacy-keys-');
let pgServer: TestPostgres | undefined;
let upstreamServer: FakeUpstream | undefined;
beforeAll(async () => {
  [pgServer, upstreamServer] = await Promise.all([startPostgres(), startFakeOpenAi()]);
});
afterAll(async () => {
  await Promise.all([pgServer?.stop(), upstreamServer?.close()]);
});
const pg = startedInBeforeAll(() => pgServer, 'the PostgreSQL server');
const upstream = startedInBeforeAll(() => upstreamServer, 'the fake OpenAI upstream');
const exchanges: Exchange[] = [];

afterAll(() => {
  expectNoSecrets(exchanges, { server, extra: ALL_KEYS.filter((k) => k.length >= 32) });
});

/** Every item of the relay keys table, as stored. */
async function scanRelayKeys(): Promise<Record<string, unknown>[]> {
  const client = DynamoDBDocumentClient.from(localDynamoClient(server.engine));
  try {
    const { Items = [] } = await client.send(new ScanCommand({ TableName: server.tables.relayKeys }));
    return Items;
  } finally {
    client.destroy();
  }
}

/** Empties the relay keys table, so each gateway's import starts from no key. */
async function clearRelayKeys(): Promise<void> {
  const client = DynamoDBDocumentClient.from(localDynamoClient(server.engine));
  try {
    const table = server.tables.relayKeys;
    const { Items = [] } = await client.send(new ScanCommand({ TableName: table, ProjectionExpression: 'keyHash' }));
    for (let i = 0; i < Items.length; i += 25) {
      const batch = Items.slice(i, i + 25).map((item) => ({ DeleteRequest: { Key: { keyHash: item.keyHash } } }));
      await client.send(new BatchWriteCommand({ RequestItems: { [table]: batch } }));
    }
  } finally {
    client.destroy();
  }
}

/** Imports the family's gateway from `engine` (dry run or not); the report. */
async function importGateway(family: FamilyKind, engine: Engine, dryRun: boolean): Promise<ImportReport> {
  if (engine === 'sqlite') {
    const file = join(dir(), `${family}.db`);
    const bytes = await sqliteFixtureBytes(channelFixtureOf(family), (sqlite) => {
      for (const statement of gatewayStatements(family, 'sqlite', upstream.url)) sqlite.exec(statement);
    });
    writeFileSync(file, bytes);
    const stdout: string[] = [];
    const stderr: string[] = [];
    const code = await runImportSqliteCli([file, '--url', server.url, '--tokens', ...(dryRun ? ['--dry-run'] : [])], {
      stdout: (line) => stdout.push(line),
      stderr: (line) => stderr.push(line),
      env: { ADMIN_KEY: server.credentials.adminKey },
    });
    for (const key of ALL_KEYS) expect(`${stdout.join('\n')}${stderr.join('\n')}`).not.toContain(key);
    expect(code, stderr.join('\n')).toBe(0);
    return JSON.parse(stdout.join('\n')) as ImportReport;
  }
  const dsn =
    engine === 'mysql'
      ? db.dsn(await db.createDatabase(undefined, gatewaySql(family, 'mysql', upstream.url)))
      : pg.dsn(await pg.createDatabase(undefined, gatewaySql(family, 'postgres', upstream.url)));
  const exchange = await callImport(server, { json: { dsn, tokens: true, dryRun } });
  exchanges.push(exchange);
  return expectReport(exchange);
}

/** The status the relay answers `apiKey` for a chat with `model`, through OpenAI's SDK. */
async function chatStatus(apiKey: string, model: string): Promise<number> {
  const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey, maxRetries: 0 });
  try {
    const answer = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'hello' }] });
    expect(answer.choices[0]?.message.content).toBeTypeOf('string');
    return 200;
  } catch (error) {
    if (error instanceof OpenAI.APIError && typeof error.status === 'number') return error.status;
    throw error;
  }
}

const ENGINES: readonly Engine[] = ['mysql', 'postgres', 'sqlite'];
const FAMILIES = Object.keys(GATEWAYS) as FamilyKind[];

describe.each(ENGINES)('legacy keys imported from %s', (engine) => {
  it.each(FAMILIES)("work with OpenAI's SDK exactly where the %s gateway accepted them", async (family) => {
    const gateway = GATEWAYS[family];
    await Promise.all([channels.clear(), clearRelayKeys()]);
    const carried = gateway.tokens.length - gateway.skipped;

    const preview = await importGateway(family, engine, true);
    const report = await importGateway(family, engine, false);

    expect(report.source.kind).toBe(family);
    expect(preview.tokens).toEqual(report.tokens);
    expect(report.tokens).toMatchObject({ read: gateway.tokens.length, created: carried, skipped: gateway.skipped });
    expect(report.tokens?.options.imported).toEqual(
      expect.arrayContaining([
        'ModelRatio',
        'CompletionRatio',
        'GroupRatio',
        'RetryTimes',
        'AutomaticDisableChannelEnabled',
      ]),
    );
    expect(report.tokens?.options.ignored).toEqual(['ChannelDisableThreshold']);
    const outcomes = [];
    for (const c of gateway.cases)
      outcomes.push({ token: c.token, why: c.why, status: await chatStatus(c.apiKey, c.model) });
    expect(outcomes).toEqual(gateway.cases.map((c) => ({ token: c.token, why: c.why, status: c.status })));
    // The key table holds no key and no prefix of one (docs/relay.md, "Keys": the mask is the id, no character of a key).
    const dump = JSON.stringify(await scanRelayKeys());
    for (const token of gateway.tokens) expect(dump).not.toContain(String(token.key).slice(0, 12));
    // Re-importing changes nothing.
    const again = await importGateway(family, engine, false);
    expect(again.tokens).toMatchObject({ created: 0, unchanged: carried, skipped: gateway.skipped });
  });
});
