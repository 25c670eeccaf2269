import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINE_CREDENTIALS_FILE, type EngineAccess, readEngineCredentialsFile } from '#infra/local/dynamo-engine';
import { TABLES } from '#shared/tables';
import { launchBrowser, type TestBrowser } from '#test/support/browser';
import { ON_ANOTHER_ENGINE } from '#test/support/dynamo-engine';
import { signedEngineHeaders } from '#test/support/engine-signing';
import { engineEndpoint, type Started, useNpmStart } from '#test/support/npm-start';

// All about the embedded engine npm start runs; another engine (DYNAMODB_ENDPOINT) is not started by it.
const { newDataDir, start } = useNpmStart({ stopAfter: 'file' });

let started: Started;
let dataDir: string;
let endpoint: string;
let browser: TestBrowser;
let otherOrigin: Server;

// What a page's script tries: the request an SDK would send (a preflighted CORS request), and a "simple"
// text/plain POST that needs no preflight. Both carry a made-up signature header, which dynalite never checked.
const PAGE_ATTACK = `async (endpoint) => {
  const attempt = async (headers) => {
    try {
      const res = await fetch(endpoint, { method: 'POST', headers, body: JSON.stringify({ TableName: 'channels' }) });
      return 'read ' + res.status + ' ' + (await res.text());
    } catch (error) {
      return 'failed: ' + error.name;
    }
  };
  const auth = {
    Authorization: 'AWS4-HMAC-SHA256 Credential=x/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=00',
    'X-Amz-Date': '20260101T000000Z',
  };
  return [
    await attempt({ ...auth, 'Content-Type': 'application/x-amz-json-1.0', 'X-Amz-Target': 'DynamoDB_20120810.Scan' }),
    await attempt({ 'Content-Type': 'text/plain' }),
  ];
}`;

beforeAll(async () => {
  if (ON_ANOTHER_ENGINE) return;
  dataDir = join(newDataDir(), 'data');
  // HOST opens the APIs to the network, as the SAM recipe used to do for the engine's sake.
  started = await start({ DATA_DIR: dataDir, HOST: '0.0.0.0' });
  endpoint = engineEndpoint(started);
  browser = await launchBrowser();
  otherOrigin = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html' });
    res.end('<!doctype html><title>another local site</title>');
  });
  await new Promise<void>((resolve) => otherOrigin.listen(0, '127.0.0.1', resolve));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => (otherOrigin ? otherOrigin.close(() => resolve()) : resolve()));
});

/** The listening TCP sockets of this machine on `port`, as local addresses (`0100007F` is 127.0.0.1). */
function listeners(port: number): string[] {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  return ['/proc/net/tcp', '/proc/net/tcp6'].flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .slice(1)
      .map((line) => line.trim().split(/\s+/))
      // Fields: sl, local_address (ADDR:PORT), rem_address, st (0A = LISTEN).
      .filter((fields) => fields[3] === '0A' && fields[1]?.endsWith(`:${hexPort}`))
      .map((fields) => (fields[1] as string).split(':')[0] as string),
  );
}

/** Signs a request to the engine the way any AWS SDK does, and sends `sent` (the signed body unless told). */
async function signedRequest(
  access: EngineAccess,
  target: string,
  body: string,
  sent = body,
): Promise<{ status: number; body: string }> {
  const headers = await signedEngineHeaders(access, {
    method: 'POST',
    url: new URL(access.endpoint),
    headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': `DynamoDB_20120810.${target}` },
    body,
  });
  return new Promise((resolve, reject) => {
    const req = request(access.endpoint, { method: 'POST', headers }, (res) => {
      let text = '';
      res.on('data', (d) => {
        text += d;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(sent);
  });
}

const listTables = (access: EngineAccess) =>
  new DynamoDBClient({ endpoint: access.endpoint, region: 'us-east-1', credentials: access.credentials }).send(
    new ListTablesCommand({}),
  );

describe.skipIf(ON_ANOTHER_ENGINE)("npm start's DynamoDB engine, with HOST=0.0.0.0", () => {
  it('listens on 127.0.0.1 only, while HOST opens the APIs on every interface', () => {
    const apiPort = Number(new URL(started.url).port);
    const enginePort = Number(new URL(endpoint).port);

    expect(new URL(endpoint).hostname).toBe('127.0.0.1');
    expect(listeners(enginePort)).toEqual(['0100007F']);
    expect(listeners(apiPort)).toEqual(['00000000']);
  });

  it('gives a page of another local origin nothing: no CORS preflight is answered, no request with an Origin served', async () => {
    const page = await browser.context.newPage();
    await page.goto(`http://127.0.0.1:${(otherOrigin.address() as AddressInfo).port}/`);

    const results = (await page.evaluate(`(${PAGE_ATTACK})(${JSON.stringify(endpoint)})`)) as string[];

    expect(results).toEqual(['failed: TypeError', 'failed: TypeError']);
    await page.close();
  });

  it('gives an HTML file opened in the browser nothing (Origin: null)', async () => {
    const file = join(newDataDir(), 'attack.html');
    writeFileSync(file, '<!doctype html><title>a saved page</title>');
    const page = await browser.context.newPage();
    await page.goto(`file://${file}`);

    const results = (await page.evaluate(`(${PAGE_ATTACK})(${JSON.stringify(endpoint)})`)) as string[];

    expect(results).toEqual(['failed: TypeError', 'failed: TypeError']);
    await page.close();
  });

  it('answers a preflight and an Origin-bearing request with a refusal that carries no CORS header', async () => {
    const access = await readEngineCredentialsFile(join(dataDir, ENGINE_CREDENTIALS_FILE));

    const preflight = await fetch(endpoint, {
      method: 'OPTIONS',
      headers: { Origin: 'http://evil.test', 'Access-Control-Request-Method': 'POST' },
    });
    const withOrigin = await fetch(endpoint, {
      method: 'POST',
      headers: { Origin: 'null', 'Content-Type': 'application/x-amz-json-1.0' },
      body: '{}',
    });

    expect(preflight.status).toBe(403);
    expect(withOrigin.status).toBe(403);
    for (const res of [preflight, withOrigin]) {
      expect([...res.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([]);
    }
    // The same engine serves its credential's holder.
    // npm start names every table of shared/tables.ts by its logical name; ListTables answers them sorted.
    expect((await listTables({ endpoint, credentials: access })).TableNames).toEqual(Object.keys(TABLES).sort());
  });

  it("refuses a request without this run's credential, with a wrong one, or with a body other than the signed one", async () => {
    const access = { endpoint, credentials: await readEngineCredentialsFile(join(dataDir, ENGINE_CREDENTIALS_FILE)) };
    const wrong = { endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };
    const wrongSecret = { endpoint, credentials: { ...access.credentials, secretAccessKey: 'guessed' } };

    const unsigned = await fetch(endpoint, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-amz-json-1.0', 'X-Amz-Target': 'DynamoDB_20120810.ListTables' },
      body: '{}',
    });
    const swapped = await signedRequest(access, 'Scan', '{"TableName":"datasets"}', '{"TableName":"channels"}');

    expect(unsigned.status).toBe(400);
    expect(await unsigned.text()).toContain('MissingAuthenticationTokenException');
    await expect(listTables(wrong)).rejects.toMatchObject({ name: 'UnrecognizedClientException' });
    await expect(listTables(wrongSecret)).rejects.toMatchObject({ name: 'InvalidSignatureException' });
    expect(swapped.status).toBe(400);
    expect(swapped.body).toContain('InvalidSignatureException');
    expect((await signedRequest(access, 'ListTables', '{}')).status).toBe(200);
  });

  it('keeps the credential in a file of its own beside credentials.json (mode 0600), a new one at every start', async () => {
    const file = join(dataDir, ENGINE_CREDENTIALS_FILE);
    const { accessKeyId, secretAccessKey } = await readEngineCredentialsFile(file);

    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(dataDir, 'credentials.json')).mode & 0o777).toBe(0o600);
    expect(accessKeyId).toMatch(/^LOCAL[0-9A-F]{16}$/);
    expect(secretAccessKey.length).toBeGreaterThanOrEqual(40);
    expect(started.output()).not.toContain(secretAccessKey);
  });

  it('creates DATA_DIR with mode 0700', () => {
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
  });
});

describe.skipIf(ON_ANOTHER_ENGINE)('npm start in a DATA_DIR that already exists with wider permissions', () => {
  it("keeps the engine's files owner-only, whatever the shell's umask", async () => {
    const existing = join(newDataDir(), 'shared');
    const previous = process.umask(0o022);
    let second: Started;
    try {
      mkdirSync(existing, { mode: 0o755 });
      second = await start({ DATA_DIR: existing });
    } finally {
      process.umask(previous);
    }
    // A write makes LevelDB create its table files.
    const [token] = JSON.parse(readFileSync(join(existing, 'credentials.json'), 'utf8')).accessTokens;
    const created = await fetch(`${second.url}/api/core/dataset/create`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'written to LevelDB' }),
    });
    expect(created.status).toBe(200);

    const engineFiles = readdirSync(join(existing, 'dynamodb'), { recursive: true, withFileTypes: true }).map((e) =>
      join(e.parentPath, e.name),
    );
    const open = [join(existing, 'dynamodb'), ...engineFiles].filter((path) => (statSync(path).mode & 0o077) !== 0);

    expect(engineFiles.length).toBeGreaterThan(0);
    expect(open).toEqual([]);
  });
});
