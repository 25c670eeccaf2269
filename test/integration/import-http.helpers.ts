import { BatchWriteCommand, DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import type { ImportReport } from '#functions/import-legacygw/report';
import { localDynamoClient } from '#infra/local/dynamo-engine';
import { fromChannelItem, type StoredChannel } from '#shared/repositories/channels';
import { captureOutput } from '#test/support/capture-output';
import { startedInBeforeAll, startTestServer, type TestServer } from '#test/support/local-server';
import { startMariaDb, type TestMariaDb } from '#test/support/mariadb';
import { seedChannels } from './channel-review.helpers.ts';
import { FIXTURE_KEYS } from './import.helpers.ts';

/** The import route of the channel proxy API. */
export const IMPORT_PATH = '/api/channels/import/legacygw';

/** One HTTP call to the import and everything the server process printed while it ran. */
export interface Exchange {
  /** The request's DSN, when it sent one as a string: it holds a password, so it must never come back. */
  readonly dsn: string | undefined;
  readonly status: number;
  readonly contentType: string | null;
  readonly text: string;
  /** The body parsed as JSON; undefined when it is not JSON. */
  readonly body: unknown;
  /** stdout and stderr of this process (gateway, authorizer and handler log lines) during the call. */
  readonly output: string;
}

/**
 * One call to the channel proxy API through the local server. `json` is sent as JSON, `raw` as is (neither: no
 * body); `authorization` defaults to the admin key, `null` sends no header.
 */
export async function callProxy(
  server: TestServer,
  request: { method: string; path: string; json?: unknown; raw?: string; authorization?: string | null },
): Promise<Exchange> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  const authorization =
    request.authorization === undefined ? `Bearer ${server.credentials.adminKey}` : request.authorization;
  if (authorization !== null) headers.Authorization = authorization;
  const payload = request.raw ?? (request.json === undefined ? undefined : JSON.stringify(request.json));
  const sentDsn = (request.json as { dsn?: unknown } | undefined)?.dsn;

  const output = captureOutput();
  let status: number;
  let contentType: string | null;
  let text: string;
  try {
    const response = await fetch(`${server.url}${request.path}`, { method: request.method, headers, body: payload });
    status = response.status;
    contentType = response.headers.get('content-type');
    text = await response.text();
  } finally {
    output.restore();
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return {
    dsn: typeof sentDsn === 'string' ? sentDsn : undefined,
    status,
    contentType,
    text,
    body,
    output: output.text(),
  };
}

/** POSTs to the import through the local server (see `callProxy`). */
export function callImport(
  server: TestServer,
  request: { json?: unknown; raw?: string; authorization?: string | null },
): Promise<Exchange> {
  return callProxy(server, { method: 'POST', path: IMPORT_PATH, ...request });
}

/** Asserts the proxy API's error envelope: exactly `{"success": false, "message": <string>}` with `status`. */
export function expectError(exchange: Exchange, status: number, message: RegExp): void {
  expect(exchange.contentType).toMatch(/^application\/json/);
  expect({ status: exchange.status, body: exchange.body }).toEqual({
    status,
    body: { success: false, message: expect.stringMatching(message) },
  });
}

/** The `data` of a 200 response, after checking the success envelope. */
export function expectData<T = unknown>(exchange: Exchange): T {
  expect({ status: exchange.status, success: (exchange.body as { success?: unknown }).success }).toEqual({
    status: 200,
    success: true,
  });
  expect(Object.keys(exchange.body as object).sort()).toEqual(['data', 'success']);
  return (exchange.body as { data: T }).data;
}

/** The import report of a 200 response, after checking the success envelope. */
export function expectReport(exchange: Exchange): ImportReport {
  return expectData<ImportReport>(exchange);
}

/**
 * A test file's calls of the channel proxy API, each exchange kept, and the channels it seeds, each key kept: the
 * file's last test checks them all for whole keys (`expectNoSecrets(watch.exchanges, { extra: [...watch.keys] })`).
 */
export function watchSecrets(server: TestServer) {
  const exchanges: Exchange[] = [];
  /** Every key any test stored, sent or saw stored. */
  const keys = new Set<string>();
  return {
    exchanges,
    keys,
    async call(request: Parameters<typeof callProxy>[1]): Promise<Exchange> {
      const exchange = await callProxy(server, request);
      exchanges.push(exchange);
      return exchange;
    },
    async seed(channels: StoredChannel[]): Promise<StoredChannel[]> {
      for (const c of channels) keys.add(c.key);
      await seedChannels(server, channels);
      return channels;
    },
  };
}

/**
 * Asserts that no secret reaches a response body or a log line of these exchanges: the MySQL password,
 * every fixture API key, the admin key, the access tokens, each request's DSN, and any `extra` secret.
 * Unless `logs` is false, also asserts that the server did print something, so the check is not vacuous.
 */
export function expectNoSecrets(
  exchanges: readonly Exchange[],
  known: { server: TestServer; mysqlPassword?: string; extra?: readonly string[]; logs?: boolean },
): void {
  const secrets = [
    ...FIXTURE_KEYS,
    known.server.credentials.adminKey,
    ...known.server.credentials.accessTokens.map((t) => t.token),
    ...(known.mysqlPassword ? [known.mysqlPassword] : []),
    ...exchanges.flatMap((e) => (e.dsn ? [e.dsn] : [])),
    ...(known.extra ?? []),
  ];
  expect(exchanges.every((e) => e.text.length > 0)).toBe(true);
  if (known.logs !== false) expect(exchanges.map((e) => e.output).join('')).not.toBe('');
  for (const exchange of exchanges) {
    for (const secret of secrets) {
      expect(exchange.text, 'response body').not.toContain(secret);
      expect(exchange.output, 'log output').not.toContain(secret);
    }
  }
}

/** The local server's `channels` table, read and emptied through the DynamoDB API like any client would. */
export interface ChannelsTable {
  scan(): Promise<StoredChannel[]>;
  /** Deletes every item, so a test starts from an empty table whatever ran before it. */
  clear(): Promise<void>;
  close(): void;
}

/**
 * The server's channels table for this test file, opened before its tests and closed after; emptied before each test
 * unless `clearEach` is false.
 */
export function useChannelsTable(server: TestServer, { clearEach = true } = {}): ChannelsTable {
  let table: ChannelsTable | undefined;
  beforeAll(() => {
    table = channelsTable(server);
  });
  afterAll(() => table?.close());
  if (clearEach) beforeEach(() => opened().clear());
  const opened = (): ChannelsTable => {
    if (!table) throw new Error('The channels table is not open yet');
    return table;
  };
  return { scan: () => opened().scan(), clear: () => opened().clear(), close: () => opened().close() };
}

export function channelsTable(server: TestServer, tableName = server.tables.channels): ChannelsTable {
  const client = DynamoDBDocumentClient.from(localDynamoClient(server.engine));
  const scan = async (projection?: string): Promise<StoredChannel[]> => {
    const items: StoredChannel[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await client.send(
        new ScanCommand({ TableName: tableName, ExclusiveStartKey: start, ProjectionExpression: projection }),
      );
      for (const item of page.Items ?? []) items.push(fromChannelItem<StoredChannel>(item));
      start = page.LastEvaluatedKey;
    } while (start);
    return items.sort((a, b) => a.id.localeCompare(b.id));
  };
  return {
    scan: () => scan(),
    async clear() {
      // Scanning again until nothing is left also covers unprocessed deletes.
      for (let ids = await scan('id'); ids.length > 0; ids = await scan('id')) {
        for (let i = 0; i < ids.length; i += 25) {
          const batch = ids.slice(i, i + 25).map(({ id }) => ({ DeleteRequest: { Key: { id } } }));
          await client.send(new BatchWriteCommand({ RequestItems: { [tableName]: batch } }));
        }
      }
    },
    close: () => client.destroy(),
  };
}

/** A test file's engines: a throwaway MariaDB, the local server, and a client for its channels table. */
export interface ImportHarness {
  db: TestMariaDb;
  server: TestServer;
  channels: ChannelsTable;
}

/**
 * Starts a file's harness. `env` is read by the import handler at its cold start, i.e. by the file's
 * first local server: a different limit needs a file of its own.
 */
export async function startImportHarness(env: Readonly<Record<string, string>> = {}): Promise<ImportHarness> {
  Object.assign(process.env, { LOG_LEVEL: 'DEBUG', ...env });
  const [db, server] = await Promise.all([startMariaDb(), startTestServer()]);
  return { db, server, channels: channelsTable(server) };
}

/** Stops whatever of a harness started. */
export async function stopImportHarness(harness: Partial<ImportHarness>): Promise<void> {
  harness.channels?.close();
  await Promise.all([harness.db?.stop(), harness.server?.close()]);
}

/** A harness and the channel proxy API's calls through its local server. */
export interface UsedImportHarness extends ImportHarness {
  /** `callImport` through the harness's server. */
  callImport(request: Parameters<typeof callImport>[1]): Promise<Exchange>;
  /** `callProxy` through the harness's server. */
  callProxy(request: Parameters<typeof callProxy>[1]): Promise<Exchange>;
}

/**
 * A test file's harness, started before its tests (see `startImportHarness` for `env`) and stopped after
 * them; the engines it returns stand for the started ones inside tests and hooks.
 */
export function useImportHarness(env: Readonly<Record<string, string>> = {}): UsedImportHarness {
  let harness: ImportHarness | undefined;
  beforeAll(async () => {
    harness = await startImportHarness(env);
  });
  afterAll(() => stopImportHarness(harness ?? {}));
  const server = startedInBeforeAll(() => harness?.server, 'the local server');
  return {
    db: startedInBeforeAll(() => harness?.db, 'the MariaDB'),
    server,
    channels: startedInBeforeAll(() => harness?.channels, 'the channels table'),
    callImport: (request) => callImport(server, request),
    callProxy: (request) => callProxy(server, request),
  };
}
