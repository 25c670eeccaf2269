import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newAccessTokenValue, readLocalCredentials, writeLocalCredentials } from '#shared/local-credentials';
import { useTestServer } from '#test/support/local-server';
import { teamRecords } from '../integration/create-dataset.helpers.ts';
import { mapConcurrent } from './harness.ts';

const CREATES = 1_000;
const IN_FLIGHT = 50;

const server = useTestServer();

describe('POST /api/core/dataset/create under load (local server)', () => {
  it(`stores all of ${CREATES} creates sent ${IN_FLIGHT} at a time, each under its own unique id`, async () => {
    // A team of its own, so the count is exact.
    const team = {
      id: randomUUID(),
      token: newAccessTokenValue(),
      teamId: randomBytes(12).toString('hex'),
      tmbId: randomBytes(12).toString('hex'),
    };
    const credentials = await readLocalCredentials(server.credentialsFile);
    await writeLocalCredentials(server.credentialsFile, {
      ...credentials,
      accessTokens: [...credentials.accessTokens, team],
    });
    const folder = await fetch(`${server.url}/api/core/dataset/create`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${team.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Load', type: 'folder' }),
    }).then((r) => r.json() as Promise<{ data: string }>);

    const replies = await mapConcurrent(
      Array.from({ length: CREATES }, (_, i) => i),
      IN_FLIGHT,
      async (i) => {
        const response = await fetch(`${server.url}/api/core/dataset/create`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${team.token}`, 'Content-Type': 'application/json' },
          // Every other one goes into the folder, so the parent read runs under load too.
          body: JSON.stringify({ name: `load ${i}`, parentId: i % 2 === 0 ? folder.data : null }),
        });
        return { status: response.status, body: (await response.json()) as { code: number; data: string } };
      },
    );

    expect(replies.filter((r) => r.status !== 200)).toEqual([]);
    const ids = replies.map((r) => r.body.data);
    expect(new Set(ids).size).toBe(CREATES);
    const stored = (await teamRecords(server.documents, team.teamId)).filter((r) => r.id !== folder.data);
    expect(stored.map((r) => r.id).sort()).toEqual([...ids].sort());
    expect(new Set(stored.map((r) => r.name)).size).toBe(CREATES);
    expect(stored.filter((r) => r.parentId === folder.data)).toHaveLength(CREATES / 2);
    // 1,000 puts, each also writing the by-parent index entry: slow on a shared machine, never a threshold.
  }, 120_000);
});
