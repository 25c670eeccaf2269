import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readLocalCredentials } from '#shared/local-credentials';

const ROOT = resolve(import.meta.dirname, '../..');
const dataDir = mkdtempSync(join(tmpdir(), 'kb-npm-start-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

interface Started {
  child: ChildProcessWithoutNullStreams;
  url: string;
  output: () => string;
}

/** Runs `npm start`'s program as a user would, on random ports, and waits for its ready line. */
async function start(): Promise<Started> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'infra/local/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', DYNAMODB_PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'WARN' },
  });
  let output = '';
  child.stdout.on('data', (d) => {
    output += d;
  });
  child.stderr.on('data', (d) => {
    output += d;
  });
  const url = await new Promise<string>((resolvePromise, reject) => {
    const timer = setInterval(() => {
      const m = /listening on (http:\/\/\S+)/.exec(output);
      if (m?.[1]) {
        clearInterval(timer);
        resolvePromise(m[1]);
      }
    }, 50);
    child.once('exit', (code) => {
      clearInterval(timer);
      reject(new Error(`npm start exited with ${code}: ${output}`));
    });
  });
  return { child, url, output: () => output };
}

async function stop(started: Started): Promise<number | null> {
  const exited = new Promise<number | null>((r) => started.child.once('exit', (code) => r(code)));
  started.child.kill('SIGTERM');
  return exited;
}

describe('npm start', () => {
  it('creates credentials once (mode 0600), serves the API, persists data across restarts and stops cleanly', async () => {
    const first = await start();
    const credentialsFile = join(dataDir, 'credentials.json');
    const credentials = await readLocalCredentials(credentialsFile);
    const [token] = credentials.accessTokens;
    expect(statSync(credentialsFile).mode & 0o777).toBe(0o600);
    expect(first.output()).toContain(credentials.adminKey);
    expect(first.output()).toContain(token?.token);

    const created = await fetch(`${first.url}/api/core/dataset/create`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token?.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'persisted across restarts', type: 'folder' }),
    });
    const createdBody = (await created.json()) as { code: number; data: string };
    expect(created.status).toBe(200);
    expect(createdBody.code).toBe(200);
    expect(await stop(first)).toBe(0);

    const second = await start();
    // The folder stored by the first run is found as a parent by the second: the data persisted.
    const child = await fetch(`${second.url}/api/core/dataset/create`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token?.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'child', parentId: createdBody.data }),
    });
    expect(child.status).toBe(200);
    expect(second.output()).not.toContain(credentials.adminKey);
    expect(second.output()).not.toContain(token?.token);
    expect(await stop(second)).toBe(0);
  });
});
