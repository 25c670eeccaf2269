import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readLocalCredentials } from '#shared/local-credentials';
import { startTestServer, type TestServer } from '#test/support/local-server';

const ROOT = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

/** Runs the tokens tool as `npm run tokens` does, in its own process, against `dataDir`. */
async function tokensTool(dataDir: string, ...args: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', 'scripts/tokens.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir },
  });
  const lines = stdout.trim().split('\n');
  return JSON.parse(lines.at(-1) ?? '') as Record<string, unknown>;
}

describe('tokens tool against the running local server', () => {
  let server: TestServer;

  beforeAll(async () => {
    // Handlers read LOG_LEVEL when the server loads them; keep routine authorizer lines out of the output.
    process.env.LOG_LEVEL = 'WARN';
    server = await startTestServer();
  });

  afterAll(async () => {
    await server?.close();
  });

  const createDataset = (token: string) =>
    fetch(`${server.url}/api/core/dataset/create`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'made with a fresh token' }),
    });

  it('a created token works at once without a restart, and stops working once revoked', async () => {
    const created = await tokensTool(server.dataDir, 'create', '--team', '65a0c0ffee0000000000beef', '--label', 'it');
    const token = created.token as string;

    const allowed = await createDataset(token);
    const allowedBody = await allowed.json();
    await tokensTool(server.dataDir, 'revoke', '--id', created.id as string);
    const revoked = await createDataset(token);
    const revokedBody = await revoked.json();

    expect(allowed.status).toBe(200);
    expect(allowedBody).toMatchObject({ code: 200, data: expect.stringMatching(/^[0-9a-f]{24}$/) });
    expect(revoked.status).toBe(401);
    expect(revokedBody).toMatchObject({ code: 514, statusText: 'unAuthApiKey', data: null });
    expect(JSON.stringify(revokedBody)).not.toContain(token);
  });
});

describe('tokens tool, several runs at once on the same local file', () => {
  it('keeps every create and the revoke of six processes started together', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'kb-tokens-processes-'));
    try {
      const doomed = await tokensTool(dataDir, 'create', '--team', 'team-1');

      const runs = await Promise.all([
        ...Array.from({ length: 5 }, () => tokensTool(dataDir, 'create', '--team', 'team-1')),
        tokensTool(dataDir, 'revoke', '--id', doomed.id as string),
      ]);

      const stored = (await readLocalCredentials(join(dataDir, 'credentials.json'))).accessTokens.map((t) => t.id);
      expect(stored).not.toContain(doomed.id);
      for (const created of runs.slice(0, 5)) expect(stored).toContain(created.id);
      expect(stored).toHaveLength(6);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
