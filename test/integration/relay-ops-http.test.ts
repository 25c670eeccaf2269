import { BatchWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ChannelView } from '#shared/channel-view';
import type { UsageRecord } from '#shared/relay/contract';
import { isServableProvider } from '#shared/relay/servable';
import type { StoredChannel } from '#shared/repositories/channels';
import { usageKeys } from '#shared/repositories/usage';
import type { ImportReport } from '#shared/schemas/import-report';
import type { UsageReport } from '#shared/schemas/usage';
import { useTestServer } from '#test/support/local-server';
import { channelPath, reviewChannel, seedChannels } from './channel-review.helpers.ts';
import {
  type ChannelsTable,
  callProxy,
  channelsTable,
  type Exchange,
  expectData,
  expectError,
  expectNoSecrets,
} from './import-http.helpers.ts';
import { ROWS_PATH } from './import-rows.helpers.ts';

// docs/channel-review-api.md, "Usage", "Channel test" and "Auto-disabled channels", through HTTP: the local server
// runs the real authorizer and functions over its own tables.

const server = useTestServer({ LOG_LEVEL: 'DEBUG' });
let table: ChannelsTable;
const exchanges: Exchange[] = [];
const keys = new Set<string>();

beforeAll(() => {
  table = channelsTable(server);
});
afterAll(() => {
  table?.close();
});
beforeEach(async () => {
  await table.clear();
});

async function call(method: string, path: string, options: { json?: unknown; authorization?: string | null } = {}) {
  const exchange = await callProxy(server, { method, path, ...options });
  exchanges.push(exchange);
  return exchange;
}

async function seed(channels: StoredChannel[]): Promise<StoredChannel[]> {
  for (const c of channels) keys.add(c.key);
  await seedChannels(server, channels);
  return channels;
}

/** Why the relay cannot serve `provider`, in the words of the module that decides. */
function reasonNotServable(provider: string): string {
  const servable = isServableProvider(provider);
  return servable.servable ? '' : servable.reason;
}

/** Writes usage records straight into the usage table, as the relay's sink does. */
async function putUsage(records: readonly UsageRecord[]): Promise<void> {
  for (let i = 0; i < records.length; i += 25) {
    const batch = records.slice(i, i + 25).map((record) => ({
      PutRequest: { Item: { ...record, ...usageKeys(record), expiresAt: 1_900_000_000 } },
    }));
    await server.documents.send(new BatchWriteCommand({ RequestItems: { [server.tables.usage]: batch } }));
  }
}

/** A record of the week of 2026-11-23, unique by `tag` so tests on the shared table never see each other's. */
function record(tag: string, n: number, time: string, fields: Partial<UsageRecord> = {}): UsageRecord {
  return {
    requestId: `${tag}-${n}`,
    time,
    keyId: `key-${tag}`,
    group: 'default',
    endpoint: 'chat',
    requestedModel: 'gpt-4o',
    upstreamModel: 'gpt-4o-2024-08-06',
    channelId: `ch-${tag}`,
    attempts: [{ channelId: `ch-${tag}`, status: 200 }],
    status: 200,
    promptTokens: 3,
    completionTokens: 4,
    totalTokens: 7,
    firstByteMs: 12,
    durationMs: 40,
    stream: false,
    clientGone: false,
    ...fields,
  };
}

describe('GET /api/usage', () => {
  it('answers the records of the period newest first with totals, per channel and per model', async () => {
    await putUsage([
      record('a', 1, '2026-11-23T10:00:00.000Z'),
      record('a', 2, '2026-11-24T10:00:00.000Z', {
        status: 429,
        attempts: [
          { channelId: 'ch-a', status: 429, errorClass: 'rate-limited' },
          { channelId: 'ch-a2', status: 429, errorClass: 'rate-limited' },
        ],
        promptTokens: undefined,
        completionTokens: undefined,
        totalTokens: undefined,
      }),
      record('a', 3, '2026-11-25T10:00:00.000Z', { requestedModel: 'claude-3-5-sonnet' }),
      record('a', 4, '2026-11-26T10:00:00.000Z'),
    ]);

    const data = expectData<UsageReport>(
      await call('GET', '/api/usage?from=2026-11-23T00:00:00Z&to=2026-11-25T23:59:59Z&keyId=key-a&per_page=2'),
    );

    expect(data.records.map((r) => r.requestId)).toEqual(['a-3', 'a-2']);
    expect(data.records[0]).toEqual(
      record('a', 3, '2026-11-25T10:00:00.000Z', { requestedModel: 'claude-3-5-sonnet' }),
    );
    expect(data).toMatchObject({
      from: '2026-11-23T00:00:00.000Z',
      to: '2026-11-25T23:59:59.000Z',
      total: 3,
      truncated: false,
      totals: { requests: 3, errors: 1, failovers: 1, totalTokens: 14, unknownUsage: 0 },
    });
    expect(data.byModel.map((m) => [m.model, m.requests])).toEqual([
      ['gpt-4o', 2],
      ['claude-3-5-sonnet', 1],
    ]);
    expect(data.byChannel.find((c) => c.channelId === 'ch-a2')).toMatchObject({
      requests: 0,
      attempts: 1,
      failedAttempts: 1,
    });
  });

  it("names each channel row after the channel it counts, reading only the channel's id, name and provider", async () => {
    const [channel] = await seed([reviewChannel(9, { name: 'usage-named' })]);
    const id = channel?.id ?? '';
    await putUsage([
      record('n', 1, '2026-11-20T10:00:00.000Z', { channelId: id, attempts: [{ channelId: id, status: 200 }] }),
    ]);

    const data = expectData<UsageReport>(await call('GET', '/api/usage?from=2026-11-20&to=2026-11-20T23:59:59Z'));

    expect(data.byChannel).toEqual([
      expect.objectContaining({ channelId: id, name: 'usage-named', provider: 'openai' }),
    ]);
  });

  it('filters by model and channel and reads epoch seconds', async () => {
    await putUsage([
      record('b', 1, '2026-11-23T10:00:00.000Z'),
      record('b', 2, '2026-11-23T11:00:00.000Z', { requestedModel: 'text-embedding-3-small', endpoint: 'embeddings' }),
    ]);
    const from = Date.parse('2026-11-23T00:00:00Z') / 1000;
    const to = Date.parse('2026-11-24T00:00:00Z') / 1000;

    const byModel = expectData<UsageReport>(
      await call('GET', `/api/usage?from=${from}&to=${to}&model=text-embedding-3-small&channelId=ch-b`),
    );

    expect(byModel.records.map((r) => r.requestId)).toEqual(['b-2']);
  });

  it('answers an empty report for a period without records', async () => {
    const data = expectData<UsageReport>(await call('GET', '/api/usage?from=2020-01-01&to=2020-01-02'));

    expect(data).toMatchObject({ records: [], total: 0, byChannel: [], byModel: [], truncated: false });
  });

  it('refuses an unknown parameter, a bad time, a reversed or too long period and a bad per_page', async () => {
    const cases: [string, RegExp][] = [
      ['?status=200', /^Unknown query parameter "status"; the usage call takes from, to, keyId, model/],
      ['?from=last-week', /^from must be an ISO 8601 time/],
      ['?from=2026-11-25&to=2026-11-24', /^from must not be after to$/],
      ['?from=2026-01-01&to=2026-03-01', /^The period from\.\.to must be at most 31 days$/],
      ['?per_page=500', /^per_page must be a whole number from 1 to 100$/],
      ['?model=a&model=b', /^Query parameter model is given more than once$/],
    ];
    for (const [query, message] of cases) expectError(await call('GET', `/api/usage${query}`), 400, message);
  });

  it('is closed without the admin key', async () => {
    const exchange = await call('GET', '/api/usage', { authorization: null });

    expect(exchange.status).toBe(401);
  });
});

describe('POST /api/channel/{id}/test', () => {
  it('answers 404 for an unknown channel and 400 for a malformed id', async () => {
    expectError(await call('POST', `${channelPath('a'.repeat(64))}/test`), 404, /^No channel has this id$/);
    expectError(await call('POST', `${channelPath('42')}/test`), 400, /^id must be a channel id/);
  });

  it('answers ok false without sending anything for a provider the relay cannot serve', async () => {
    const [channel] = await seed([reviewChannel(1, { provider: 'tencent', name: 'hunyuan' })]);

    const data = expectData(await call('POST', `${channelPath(channel?.id ?? '')}/test`));

    expect(data).toEqual({
      ok: false,
      status: 0,
      latencyMs: 0,
      model: 'gpt-4o',
      message: reasonNotServable('tencent'),
    });
  });

  it('is closed without the admin key', async () => {
    const exchange = await call('POST', `${channelPath('a'.repeat(64))}/test`, { authorization: null });

    expect(exchange.status).toBe(401);
  });
});

describe('auto-disabled channels', () => {
  const autoDisable = (id: string) =>
    server.documents.send(
      new UpdateCommand({
        TableName: server.tables.channels,
        Key: { id },
        UpdateExpression: 'SET #status = :status, #reason = :reason, #at = :at',
        ExpressionAttributeNames: { '#status': 'status', '#reason': 'statusReason', '#at': 'statusChangedAt' },
        ExpressionAttributeValues: {
          ':status': 'auto-disabled',
          ':reason': '3 authentication failures in a row (401)',
          ':at': '2026-11-27T10:00:00.000Z',
        },
      }),
    );

  it('are listed by status, shown with their reason, and re-enabled by an update that clears the reason', async () => {
    const [first, second] = await seed([reviewChannel(1, { name: 'one' }), reviewChannel(2, { name: 'two' })]);
    const id = first?.id ?? '';
    await autoDisable(id);

    const listed = expectData<{ channels: ChannelView[]; total: number }>(
      await call('GET', '/api/channels/?status=auto-disabled'),
    );
    expect(listed.channels.map((c) => [c.name, c.status, c.statusReason, c.servable])).toEqual([
      ['one', 'auto-disabled', '3 authentication failures in a row (401)', true],
    ]);

    const enabled = expectData<ChannelView>(await call('PUT', channelPath(id), { json: { status: 'enabled' } }));
    expect(enabled.status).toBe('enabled');
    expect(enabled).not.toHaveProperty('statusReason');
    expect(enabled.statusChangedAt).not.toBe('2026-11-27T10:00:00.000Z');
    expect(enabled.editedAt).toEqual(expect.any(String));
    const stored = (await table.scan()).find((c) => c.id === id);
    expect(stored).not.toHaveProperty('statusReason');
    expect(second?.status).toBe('enabled');
  });

  it('are never re-enabled by a re-import: left as they are and counted as edited', async () => {
    const rows = {
      columns: ['id', 'type', 'key', 'status', 'name', 'base_url', 'models', 'group'],
      rows: [[7, 1, 'sk-relay-ops-reimport-0123456789', 1, 'openai-main', '', 'gpt-4o', 'default']],
    };
    keys.add('sk-relay-ops-reimport-0123456789');
    expectData(await call('POST', ROWS_PATH, { json: rows }));
    const [imported] = await table.scan();
    await autoDisable(imported?.id ?? '');

    const report = expectData<ImportReport>(await call('POST', ROWS_PATH, { json: rows }));

    expect(report.channels).toEqual({ created: 0, updated: 0, unchanged: 0, edited: 1 });
    const [after] = await table.scan();
    expect(after).toMatchObject({ status: 'auto-disabled', statusReason: '3 authentication failures in a row (401)' });
  });
});

describe('secrets', () => {
  it('never shows a whole key in any response or log line of this file', () => {
    expectNoSecrets(exchanges, { server, extra: [...keys] });
  });
});
