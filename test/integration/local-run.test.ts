import { statSync } from 'node:fs';
import { request } from 'node:http';
import { type AddressInfo, createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { DescribeTableCommand, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import dynalite from 'dynalite';
import { afterEach, describe, expect, it } from 'vitest';
import { EXTERNAL_ENGINE_CREDENTIALS, localDynamoClient } from '#infra/local/dynamo-engine';
import { readLocalCredentials } from '#shared/local-credentials';
import { TABLES } from '#shared/tables';
import { ON_ANOTHER_ENGINE, startTestEngine, type TestEngine } from '#test/support/dynamo-engine';
import { freePort } from '#test/support/dynamodb-local';
import { stop, useNpmStart } from '#test/support/npm-start';

const { newDataDir, start, startFailing } = useNpmStart();

function createFolder(url: string, token: string | undefined, body: unknown) {
  return fetch(`${url}/api/core/dataset/create`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
}

describe('npm start with the embedded engine', () => {
  // About dynalite itself: its data persisted under DATA_DIR across restarts.
  it.skipIf(ON_ANOTHER_ENGINE)(
    'creates credentials once (mode 0600), serves the API, persists data across restarts and stops cleanly',
    async () => {
      const dataDir = newDataDir();
      const first = await start({ DATA_DIR: dataDir });
      const credentialsFile = join(dataDir, 'credentials.json');
      const credentials = await readLocalCredentials(credentialsFile);
      const [token] = credentials.accessTokens;
      expect(statSync(credentialsFile).mode & 0o777).toBe(0o600);
      expect(first.output()).toContain(credentials.adminKey);
      expect(first.output()).toContain(token?.token);
      expect(first.output()).toMatch(/DynamoDB engine: embedded dynalite on http:\/\/127\.0\.0\.1:\d+/);

      const created = await createFolder(first.url, token?.token, {
        name: 'persisted across restarts',
        type: 'folder',
      });
      const createdBody = (await created.json()) as { code: number; data: string };
      expect(created.status).toBe(200);
      expect(createdBody.code).toBe(200);
      expect(await stop(first.child)).toBe(0);

      const second = await start({ DATA_DIR: dataDir });
      // The folder stored by the first run is found as a parent by the second: the data persisted.
      const child = await createFolder(second.url, token?.token, { name: 'child', parentId: createdBody.data });
      expect(child.status).toBe(200);
      expect(second.output()).not.toContain(credentials.adminKey);
      expect(second.output()).not.toContain(token?.token);
      expect(await stop(second.child)).toBe(0);
    },
    // Two starts and two stops of the whole program: generous for a loaded machine.
    90_000,
  );
});

/** POSTs `body` without a token and resolves with the status; the server may close before reading it all. */
function postUnauthenticated(url: string, body: Buffer): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const req = request(`${url}/api/core/dataset/create`, { method: 'POST' }, (res) => {
      res.resume();
      resolvePromise(res.statusCode ?? 0);
    });
    // The server answers 413 and closes while the client is still sending: only an error before any answer counts.
    req.on('error', reject);
    req.end(body);
  });
}

describe('npm start under bad requests', () => {
  it('answers an unauthenticated body over 10 MiB with 413 and goes on serving', async () => {
    const dataDir = newDataDir();
    const started = await start({ DATA_DIR: dataDir });
    const [token] = (await readLocalCredentials(join(dataDir, 'credentials.json'))).accessTokens;

    const status = await postUnauthenticated(started.url, Buffer.alloc(10 * 1024 * 1024 + 1, 0x61));
    const after = await createFolder(started.url, token?.token, { name: 'after the 413', type: 'folder' });

    expect(status).toBe(413);
    expect(after.status).toBe(200);
    expect(started.child.exitCode).toBeNull();
    expect(await stop(started.child)).toBe(0);
  }, 60_000);
});

/**
 * An engine that takes any credential, as DynamoDB Local does (npm start signs an engine it did not start
 * with a dummy credential): the shared external engine, or an unguarded dynalite in this process.
 */
async function startOpenEngine(): Promise<TestEngine> {
  if (ON_ANOTHER_ENGINE) return startTestEngine();
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolvePromise) => server.listen(0, '127.0.0.1', resolvePromise));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    credentials: EXTERNAL_ENGINE_CREDENTIALS,
    close: () =>
      new Promise<void>((resolvePromise) => {
        server.close(() => resolvePromise());
        server.closeAllConnections();
      }),
  };
}

describe('npm start with DYNAMODB_ENDPOINT', () => {
  let engine: TestEngine | undefined;
  let busyPort: Server | undefined;
  afterEach(async () => {
    await engine?.close();
    engine = undefined;
    await new Promise<void>((r) => (busyPort ? busyPort.close(() => r()) : r()));
    busyPort = undefined;
  });

  it('uses that engine, creates the missing tables there, says so, and never starts dynalite', async () => {
    engine = await startOpenEngine();
    // DYNAMODB_PORT is taken: starting dynalite on it would fail the start.
    busyPort = createServer();
    await new Promise<void>((r) => busyPort?.listen(0, '127.0.0.1', r));
    const taken = (busyPort.address() as { port: number }).port;
    const dataDir = newDataDir();

    const started = await start({
      DATA_DIR: dataDir,
      DYNAMODB_ENDPOINT: `${engine.endpoint}/`,
      DYNAMODB_PORT: `${taken}`,
    });

    expect(started.output()).toContain(
      `DynamoDB engine: external, DYNAMODB_ENDPOINT=${engine.endpoint} (embedded dynalite not started)`,
    );
    expect(started.output()).not.toContain('embedded dynalite on');
    const client = localDynamoClient(engine);
    try {
      for (const def of Object.values(TABLES)) {
        const { Table } = await client.send(new DescribeTableCommand({ TableName: def.logicalName }));
        expect(Table?.TableStatus).toBe('ACTIVE');
        expect(Table?.KeySchema?.[0]).toEqual({ AttributeName: def.partitionKey, KeyType: 'HASH' });
      }
      const [token] = (await readLocalCredentials(join(dataDir, 'credentials.json'))).accessTokens;
      const created = await createFolder(started.url, token?.token, { name: 'on the other engine', type: 'folder' });
      const id = ((await created.json()) as { data: string }).data;
      expect(created.status).toBe(200);
      const { Item } = await DynamoDBDocumentClient.from(client).send(
        new GetCommand({ TableName: 'datasets', Key: { teamId: token?.teamId, id } }),
      );
      expect(Item).toMatchObject({ id, name: 'on the other engine', type: 'folder' });

      expect(await stop(started.child)).toBe(0);
      // npm start leaves an engine it did not start running.
      expect((await client.send(new ListTablesCommand({}))).TableNames).toContain('datasets');
    } finally {
      client.destroy();
    }
  });

  it('fails to start, naming DYNAMODB_ENDPOINT, when nothing answers there', async () => {
    const endpoint = `http://127.0.0.1:${await freePort()}`;

    const { code, output } = await startFailing({ DATA_DIR: newDataDir(), DYNAMODB_ENDPOINT: endpoint });

    expect(code).toBe(1);
    expect(output).toContain(
      `npm start failed: cannot prepare the tables on the DynamoDB engine at ${endpoint} (DYNAMODB_ENDPOINT)`,
    );
    expect(output).not.toContain('listening on');
  });

  it('refuses an endpoint with credentials in it, naming the variable and not echoing the password', async () => {
    const { code, output } = await startFailing({
      DATA_DIR: newDataDir(),
      DYNAMODB_ENDPOINT: 'http://admin:s3cret-pw@127.0.0.1:8000',
    });

    expect(code).toBe(1);
    expect(output).toMatch(
      /npm start failed: Invalid environment: DYNAMODB_ENDPOINT must be scheme:\/\/host:port only/,
    );
    expect(output).not.toContain('s3cret-pw');
  });
});
