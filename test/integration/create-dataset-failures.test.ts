import { DeleteTableCommand, DescribeTableCommand, ResourceNotFoundException } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { ensureTables } from '#infra/local/dynamo-engine';
import { captureOutput } from '#test/support/capture-output';
import { startTestServer, useTestServer } from '#test/support/local-server';
import { addAccessToken, createRequest, expectCreated, expectError } from './create-dataset.helpers.ts';

// Log everything, so the leak test sees every line the functions would write.
const server = useTestServer({ LOG_LEVEL: 'DEBUG' });

/** Runs `during` with the datasets table gone, then puts an empty one back. */
async function withoutDatasetsTable<T>(during: () => Promise<T>): Promise<T> {
  await server.dynamo.send(new DeleteTableCommand({ TableName: server.tables.datasets }));
  for (;;) {
    try {
      await server.dynamo.send(new DescribeTableCommand({ TableName: server.tables.datasets }));
      await new Promise((r) => setTimeout(r, 10));
    } catch (error) {
      if (error instanceof ResourceNotFoundException) break;
      throw error;
    }
  }
  try {
    return await during();
  } finally {
    await ensureTables(server.dynamo, server.tables);
  }
}

describe('POST /api/core/dataset/create: unexpected failures', () => {
  it('answers 500 with the generic message and no table name or SDK text when the table is gone', async () => {
    const team = await addAccessToken(server);

    const reply = await withoutDatasetsTable(() => createRequest(server, { name: 'Docs' }, `Bearer ${team.token}`));

    expectError(reply, 500, 500);
    expect(reply.body).toStrictEqual({ code: 500, statusText: 'error', message: 'Internal error', data: null });
    const text = JSON.stringify(reply.body);
    expect(text).not.toMatch(/datasets|ResourceNotFound|Requested resource|Exception|at /);
  });
});

describe('POST /api/core/dataset/create: secrets in output', () => {
  it('writes no access token or admin key to stdout, stderr or the console on any error path', async () => {
    const output = captureOutput();
    const team = await addAccessToken(server);
    const other = await addAccessToken(server);
    const expired = await addAccessToken(server, { expiresAt: '2020-01-01T00:00:00Z' });
    const unknownToken = 'kb-unknown-token-0123456789abcdefghijklmnopqrstuv';
    const { adminKey } = server.credentials;
    const bearer = `Bearer ${team.token}`;
    const statuses: number[] = [];
    const send = async (body: unknown, authorization?: string) => {
      statuses.push((await createRequest(server, body, authorization)).status);
    };

    try {
      const dataset = expectCreated(await createRequest(server, { name: 'Plain' }, bearer));
      const foreignFolder = expectCreated(
        await createRequest(server, { name: 'Theirs', type: 'folder' }, `Bearer ${other.token}`),
      );
      await send({ name: 'Docs' });
      await send({ name: 'Docs' }, `Basic ${team.token}`);
      await send({ name: 'Docs' }, team.token);
      await send({ name: 'Docs' }, `Bearer ${unknownToken}`);
      await send({ name: 'Docs' }, `Bearer ${expired.token}`);
      await send({ name: 'Docs' }, `Bearer ${adminKey}`);
      await send('{"name":', bearer);
      await send('[]', bearer);
      await send({ name: team.token, intro: team.token.repeat(3000) }, bearer);
      await send({ name: 5, apiKey: team.token }, bearer);
      await send({ name: team.token, type: team.token }, bearer);
      await send({ name: team.token, parentId: team.token }, bearer);
      await send({ name: team.token, avatar: team.token.repeat(40) }, bearer);
      await send({ name: '  ', token: team.token }, bearer);
      await send({ name: team.token, parentId: dataset }, bearer);
      await send({ name: team.token, parentId: 'abcdefabcdefabcdefabcdef' }, bearer);
      await send({ name: team.token, parentId: foreignFolder }, bearer);
      await send({ name: team.token, vectorModel: team.token }, bearer);
      const throttled = await startTestServer({ throttle: { rateLimit: 1, burstLimit: 1 } });
      try {
        const replies = await Promise.all(
          Array.from({ length: 4 }, () => createRequest(throttled, { name: team.token }, bearer)),
        );
        statuses.push(...replies.map((r) => r.status));
      } finally {
        await throttled.close();
      }
      await withoutDatasetsTable(() => send({ name: team.token }, bearer));
    } finally {
      output.restore();
    }

    expect(new Set(statuses)).toEqual(new Set([200, 400, 401, 404, 429, 500]));
    const text = output.text();
    expect(text).toContain('Unexpected error in the knowledge-base API');
    for (const secret of [team.token, other.token, expired.token, unknownToken, adminKey]) {
      expect(text).not.toContain(secret);
    }
  });
});
