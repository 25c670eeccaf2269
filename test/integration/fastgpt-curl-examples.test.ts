/**
 * FastGPT's documented curl examples of the knowledge-base calls, run as written through the curl CLI
 * against the local server (`npm start`'s gateway and handlers). Only the host and the token change:
 * `http://localhost:3000` becomes the server's address, `{{authorization}}` (and the list example's
 * `xxxx`) the token. The ids the detail and delete examples name are records of the caller's team.
 *
 * Source: labring/FastGPT, the dataset OpenAPI page, at v4.11.1 (e25d7ef,
 * document/content/docs/introduction/development/openapi/dataset.mdx) and at v4.16.0 (b60be54,
 * document/content/openapi/dataset.en.mdx, whose create example adds `vlmModel: gpt-4.1`).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import type { LocalAccessToken } from '#shared/local-credentials';
import { useTestServer } from '#test/support/local-server';
import { addAccessToken } from './create-dataset.helpers.ts';
import { kbClient, seedRecord, seedRecords } from './knowledge-base.helpers.ts';

const run = promisify(execFile);

const CREATE_V4_11 = `curl --location --request POST 'http://localhost:3000/api/core/dataset/create' \\
--header 'Authorization: Bearer {{authorization}}' \\
--header 'Content-Type: application/json' \\
--data-raw '{
    "parentId": null,
    "type": "dataset",
    "name":"测试",
    "intro":"介绍",
    "avatar": "",
    "vectorModel": "text-embedding-ada-002",
    "agentModel": "gpt-3.5-turbo-16k"
}'
`;

const CREATE_V4_16 = `curl --location --request POST 'http://localhost:3000/api/core/dataset/create' \\
--header 'Authorization: Bearer {{authorization}}' \\
--header 'Content-Type: application/json' \\
--data-raw '{
  "parentId": null,
  "type": "dataset",
  "name":"测试",
  "intro":"介绍",
  "avatar": "",
  "vectorModel": "text-embedding-ada-002",
  "agentModel": "gpt-3.5-turbo-16k",
  "vlmModel": "gpt-4.1"
}'
`;

const LIST = `curl --location --request POST 'http://localhost:3000/api/core/dataset/list?parentId=' \\
--header 'Authorization: Bearer xxxx' \\
--header 'Content-Type: application/json' \\
--data-raw '{
    "parentId":""
}'
`;

// The page's detail and delete examples end with a line continuation, as here.
const DETAIL = `curl --location --request GET 'http://localhost:3000/api/core/dataset/detail?id=6593e137231a2be9c5603ba7' \\
--header 'Authorization: Bearer {{authorization}}' \\
`;

const DELETE = `curl --location --request DELETE 'http://localhost:3000/api/core/dataset/delete?id=65abc8729d1448617cba5df6' \\
--header 'Authorization: Bearer {{authorization}}' \\
`;

const DETAIL_ID = '6593e137231a2be9c5603ba7';
const DELETE_ID = '65abc8729d1448617cba5df6';

const server = useTestServer();
const scripts = mkdtempSync(join(tmpdir(), 'fastgpt-curl-'));
afterAll(() => rmSync(scripts, { recursive: true, force: true }));

let team: LocalAccessToken;

beforeEach(async () => {
  team = await addAccessToken(server);
});

/** Runs one example with bash, the host and token replaced, and answers the JSON curl printed. */
async function runExample(example: string): Promise<Record<string, unknown>> {
  const script = example
    .replaceAll('http://localhost:3000', server.url)
    .replaceAll('{{authorization}}', team.token)
    .replace('Bearer xxxx', `Bearer ${team.token}`);
  const file = join(scripts, `${Math.random().toString(36).slice(2)}.sh`);
  writeFileSync(file, script);
  const { stdout } = await run('bash', [file]);
  return JSON.parse(stdout) as Record<string, unknown>;
}

describe("FastGPT's documented curl examples", () => {
  it.each([
    ['v4.11.1', CREATE_V4_11, undefined],
    ['v4.16.0', CREATE_V4_16, 'gpt-4.1'],
  ])('create (%s) creates the knowledge base it describes', async (_version, example, vlmModel) => {
    const reply = await runExample(example);

    expect(reply).toStrictEqual({
      code: 200,
      statusText: '',
      message: '',
      data: expect.stringMatching(/^[0-9a-f]{24}$/),
    });
    const detail = await kbClient(server, `Bearer ${team.token}`).detail({ id: reply.data as string });
    expect(detail.body.data).toMatchObject({
      name: '测试',
      intro: '介绍',
      avatar: '/icon/logo.svg',
      vectorModel: { model: 'text-embedding-ada-002' },
      agentModel: { model: 'gpt-3.5-turbo-16k' },
      vlmModel: { model: vlmModel ?? 'gpt-4o-mini' },
    });
  });

  it('list answers the root of the team', async () => {
    const api = kbClient(server, `Bearer ${team.token}`);
    const folder = await api.make({ name: 'Folder', type: 'folder' });
    await api.make({ name: 'Inside', parentId: folder });
    await api.make({ name: 'Docs' });

    const reply = await runExample(LIST);

    expect(reply).toMatchObject({ code: 200, statusText: '', message: '' });
    expect((reply.data as { name: string }[]).map((i) => i.name).sort()).toEqual(['Docs', 'Folder']);
  });

  it('detail answers the record the example names', async () => {
    await seedRecords(
      server.documents,
      [{ ...seedRecord(team.teamId, null, 'dataset', 'FastGPT test'), id: DETAIL_ID }],
      server.tables.datasets,
    );

    const reply = await runExample(DETAIL);

    expect(reply).toMatchObject({
      code: 200,
      data: { _id: DETAIL_ID, name: 'FastGPT test', status: 'active', permission: { isOwner: true } },
    });
  });

  it('delete deletes the record the example names', async () => {
    await seedRecords(
      server.documents,
      [{ ...seedRecord(team.teamId, null, 'dataset', 'Old'), id: DELETE_ID }],
      server.tables.datasets,
    );

    const reply = await runExample(DELETE);
    const after = await kbClient(server, `Bearer ${team.token}`).detail({ id: DELETE_ID });

    expect(reply).toStrictEqual({ code: 200, statusText: '', message: '', data: null });
    expect(after.status).toBe(404);
  });
});
