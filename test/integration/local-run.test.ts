import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DescribeTableCommand, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { localDynamoClient } from '#infra/local/dynamo-engine';
import { readLocalCredentials } from '#shared/local-credentials';
import { TABLES } from '#shared/tables';
import { ON_ANOTHER_ENGINE, startTestEngine, type TestEngine } from '#test/support/dynamo-engine';
import { freePort } from '#test/support/dynamodb-local';

const ROOT = resolve(import.meta.dirname, '../..');
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function newDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'kb-npm-start-'));
  dirs.push(dir);
  return dir;
}

interface Started {
  child: ChildProcessWithoutNullStreams;
  url: string;
  output: () => string;
}

// Every `npm start` a test spawns, stopped after the test even when an assertion failed.
const running = new Set<ChildProcessWithoutNullStreams>();
afterEach(async () => {
  await Promise.all([...running].map((child) => stop(child, 'SIGKILL')));
});

/** Spawns `npm start`'s program as a user would, in its own process group, with `env` on top of ours. */
function spawnStart(env: NodeJS.ProcessEnv): { child: ChildProcessWithoutNullStreams; output: () => string } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'infra/local/main.ts'], {
    cwd: ROOT,
    // The test chooses the engine: DYNAMODB_ENDPOINT of this run is not inherited.
    env: { ...process.env, DYNAMODB_ENDPOINT: '', PORT: '0', DYNAMODB_PORT: '0', LOG_LEVEL: 'WARN', ...env },
    detached: true,
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  let output = '';
  child.stdout.on('data', (d) => {
    output += d;
  });
  child.stderr.on('data', (d) => {
    output += d;
  });
  return { child, output: () => output };
}

/** Runs `npm start` and waits for its ready line. */
async function start(env: NodeJS.ProcessEnv): Promise<Started> {
  const { child, output } = spawnStart(env);
  const url = await new Promise<string>((resolvePromise, reject) => {
    const timer = setInterval(() => {
      const m = /listening on (http:\/\/\S+)/.exec(output());
      if (m?.[1]) {
        clearInterval(timer);
        resolvePromise(m[1]);
      }
    }, 50);
    child.once('exit', (code) => {
      clearInterval(timer);
      reject(new Error(`npm start exited with ${code}: ${output()}`));
    });
  });
  return { child, url, output };
}

/** Runs `npm start` that is expected to fail, and returns its exit code and output. */
async function startFailing(env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  const { child, output } = spawnStart(env);
  const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
  return { code, output: output() };
}

/** Signals the whole process group (the program and the engine it forked) and waits for the exit code. */
async function stop(child: ChildProcessWithoutNullStreams, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  try {
    process.kill(-(child.pid as number), signal);
  } catch {
    child.kill(signal);
  }
  return exited;
}

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
  });
});

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
    engine = await startTestEngine();
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
    const client = localDynamoClient(engine.endpoint);
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
