import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readLocalCredentials } from '#shared/local-credentials';
import { type FakeBedrock, startFakeBedrock } from '#test/support/fake-bedrock';
import { type FakeUpstream, startFakeAnthropic } from '#test/support/fake-upstreams';
import { startMariaDb, type TestMariaDb } from '#test/support/mariadb';
import { type Started, useNpmStart } from '#test/support/npm-start';
import { runTokensCli } from '../../scripts/tokens/cli.ts';

/*
 * Bedrock as its users meet it (docs/relay.md, "Providers"): One API's AWS Claude channels (type 33, `ak|sk|region`)
 * imported from MariaDB with base URLs at fake Bedrock Runtimes that verify every SigV4 signature
 * (test/support/fake-bedrock.ts), `npm start`, and the official `openai` and `@anthropic-ai/sdk` clients unchanged but
 * for the base URL and the relay key: chat and Messages, streamed and not, failover and usage, and no credential
 * anywhere a caller or a log reader sees.
 */

const FIXTURE = resolve(import.meta.dirname, '../fixtures/relay-bedrock-channels.sql');
const PRIMARY = {
  accessKeyId: 'AKIAFIXTUREBEDROCK01',
  secretAccessKey: 'fixtureBedrockSecret0001/abcdefghijklmnopqrst',
};
const BACKUP = {
  accessKeyId: 'AKIAFIXTUREBEDROCK02',
  secretAccessKey: 'fixtureBedrockSecret0002/abcdefghijklmnopqrst',
};
const ANTHROPIC_KEY = 'sk-ant-fixture-bedrock-0003-cccccccccccccccccccccccc';
const MODEL = 'claude-3-5-sonnet-20240620';

const npm = useNpmStart({ stopAfter: 'file' });
let mariadb: TestMariaDb;
let primary: FakeBedrock;
let backup: FakeBedrock;
let anthropic: FakeUpstream;
let server: Started;
let adminKey: string;
let relayKey: string;

beforeAll(async () => {
  [mariadb, primary, backup, anthropic] = await Promise.all([
    startMariaDb(),
    startFakeBedrock({ credentials: PRIMARY, region: 'us-east-1' }),
    startFakeBedrock({ credentials: BACKUP, region: 'eu-west-1', reply: 'Hello from the backup' }),
    startFakeAnthropic({ key: ANTHROPIC_KEY }),
  ]);
  const sql = readFileSync(FIXTURE, 'utf8')
    .replaceAll('{{BEDROCK_PRIMARY}}', primary.url)
    .replaceAll('{{BEDROCK_BACKUP}}', backup.url)
    .replaceAll('{{ANTHROPIC}}', anthropic.url);
  const database = await mariadb.createDatabase(undefined, sql);
  const dataDir = npm.newDataDir();
  server = await npm.start({ DATA_DIR: dataDir, RELAY_ALLOWED_HOSTS: '127.0.0.1', LOG_LEVEL: 'INFO' });
  ({ adminKey } = await readLocalCredentials(join(dataDir, 'credentials.json')));
  const imported = await fetch(`${server.url}/api/channels/import/legacygw`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${adminKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ dsn: mariadb.dsn(database) }),
  });
  expect(imported.status).toBe(200);
  const report = (await imported.json()) as { data: { channels: { created: number }; notServable?: unknown[] } };
  expect(report.data.channels.created).toBe(3);
  expect(report.data.notServable ?? []).toEqual([]);
  const stdout: string[] = [];
  const code = await runTokensCli(['relay', 'create', '--name', 'bedrock-e2e'], {
    stdout: (line) => stdout.push(line),
    stderr: () => {},
    env: { DATA_DIR: dataDir },
  });
  expect(code).toBe(0);
  relayKey = (JSON.parse(stdout.at(-1) ?? '{}') as { key: string }).key;
}, 180_000);

afterAll(async () => {
  await Promise.all([mariadb?.stop(), primary?.close(), backup?.close(), anthropic?.close()]);
});

const openai = () => new OpenAI({ baseURL: `${server.url}/v1`, apiKey: relayKey, maxRetries: 0 });
const claude = () => new Anthropic({ baseURL: server.url, apiKey: relayKey, maxRetries: 0 });

async function usageRecords(): Promise<Record<string, unknown>[]> {
  await new Promise((r) => setTimeout(r, 300));
  const response = await fetch(`${server.url}/api/usage?per_page=100`, {
    headers: { Authorization: `Bearer ${adminKey}` },
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: { records: Record<string, unknown>[] } }).data.records;
}

describe('Bedrock channels through npm start', () => {
  it("lists the Bedrock channels' models", async () => {
    const models = await openai().models.list();

    expect(models.data.map((m) => m.id)).toEqual(expect.arrayContaining([MODEL, 'claude-3-haiku-20240307']));
  });

  it("answers OpenAI's SDK through Converse on the higher tier, with its signed key and its region's profile", async () => {
    const before = primary.requests.length;

    const completion = await openai().chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'Hi' }],
    });

    expect(completion.choices[0]?.message.content).toBe('Hello from Bedrock');
    expect(completion.usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 });
    expect(primary.requests.slice(before).map((r) => r.path)).toEqual([
      '/model/us.anthropic.claude-3-5-sonnet-20240620-v1%3A0/converse',
    ]);
    expect(String(primary.requests.at(-1)?.headers.authorization)).toContain(`Credential=${PRIMARY.accessKeyId}/`);
  });

  it("streams to OpenAI's SDK from ConverseStream's event stream, usage included when asked", async () => {
    const stream = await openai().chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'Hi' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let usage: unknown;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }

    expect(text).toBe('Hello from Bedrock');
    expect(usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 7 });
    expect(primary.requests.at(-1)?.path).toMatch(/\/converse-stream$/);
  });

  it("answers Anthropic's SDK on /v1/messages through Converse, streamed and not", async () => {
    const message = await claude().messages.create({
      model: MODEL,
      max_tokens: 64,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    const stream = claude().messages.stream({
      model: MODEL,
      max_tokens: 64,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    const streamed = await stream.finalMessage();

    expect(message.content).toEqual([{ type: 'text', text: 'Hello from Bedrock' }]);
    expect(message.usage).toMatchObject({ input_tokens: 11, output_tokens: 7 });
    expect(streamed.content).toEqual([{ type: 'text', text: 'Hello from Bedrock' }]);
    expect(streamed.stop_reason).toBe('end_turn');
  });

  it("counts tokens for Anthropic's SDK: Bedrock's CountTokens on an aws channel, passed through on an anthropic one", async () => {
    const onBedrock = await claude().messages.countTokens({
      model: MODEL,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    const onAnthropic = await claude().messages.countTokens({
      model: 'claude-3-5-haiku-latest',
      messages: [{ role: 'user', content: 'Hi' }],
    });

    expect(onBedrock).toEqual({ input_tokens: 42 });
    expect(primary.requests.at(-1)?.path).toBe('/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/count-tokens');
    expect(onAnthropic.input_tokens).toBeGreaterThan(0);
    expect(anthropic.requests.at(-1)?.path).toBe('/v1/messages/count_tokens');
    expect(anthropic.requests.at(-1)?.headers['x-api-key']).toBe(ANTHROPIC_KEY);
  });

  it("answers a model no channel counts for in Anthropic's envelope, which the SDK raises", async () => {
    const error = await claude()
      .messages.countTokens({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] })
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect((error as InstanceType<typeof Anthropic.APIError>).status).toBe(503);
    expect((error as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({
      type: 'error',
      error: { type: 'api_error' },
    });
  });

  it('fails over to the lower tier in Europe when the higher one is throttled, and records both attempts', async () => {
    primary.fault({ kind: 'rate-limited' });
    const before = backup.requests.length;

    const completion = await openai().chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    const [record] = await usageRecords();

    expect(completion.choices[0]?.message.content).toBe('Hello from the backup');
    expect(backup.modelIds.at(-1)).toBe('eu.anthropic.claude-3-5-sonnet-20240620-v1:0');
    expect(backup.requests.length).toBe(before + 1);
    expect(record).toMatchObject({ status: 200, promptTokens: 11, completionTokens: 7 });
    expect((record?.attempts as { status: number }[] | undefined)?.map((a) => a.status)).toEqual([429, 200]);
  });

  it('shows no AWS secret, signature or echoed canonical request to the SDK, the usage records or the log', async () => {
    primary.fault({ kind: 'bad-signature-echo' });
    backup.fault({ kind: 'bad-signature-echo' });

    const error = await openai()
      .chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Hi' }] })
      .catch((e: unknown) => e);
    const records = JSON.stringify(await usageRecords());
    const signatures = [primary, backup].map(
      (f) => String(f.requests.at(-1)?.headers.authorization).split('Signature=')[1],
    );

    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(403);
    const seen = [JSON.stringify(error), String((error as Error).message), records, server.output()].join('\n');
    for (const secret of [PRIMARY.secretAccessKey, BACKUP.secretAccessKey, 'x-amz-date:', ...signatures]) {
      expect(seen).not.toContain(secret);
    }
  });
});
