import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { parseListQuery } from '#functions/list-channels/list-channels';
import { type ChannelTester, testChannel, testModelOf } from '#functions/test-channel/test-channel';
import { updateChannel } from '#functions/update-channel/update-channel';
import { MAX_RANGE_DAYS, parseTime, parseUsageQuery } from '#functions/usage/schema';
import { daysNewestFirst, MAX_RECORDS_READ, readUsage, toUsageRecord } from '#functions/usage/usage';
import { toChannelView } from '#shared/channel-view';
import { ProxyApiError } from '#shared/errors';
import type { ChannelTestResult, RelayChannel, UsageRecord } from '#shared/relay/contract';
import { isServableProvider } from '#shared/relay/servable';
import { ChannelRepository, type StoredChannel } from '#shared/repositories/channels';
import { type UsageStore, usageKeys } from '#shared/repositories/usage';
import { reviewChannel } from '#test/integration/channel-review.helpers';
import { testLogger } from '#test/integration/import.helpers';

const NOW = new Date('2026-11-27T12:00:00.000Z');

/** Why the relay cannot serve `provider`, in the words of the module that decides (one source of truth at merge). */
function reasonFor(provider: string): string {
  const servable = isServableProvider(provider);
  return servable.servable ? '' : servable.reason;
}
const logger = testLogger();

/** A usage record at `time` with sensible defaults. */
function usage(n: number, time: string, fields: Partial<UsageRecord> = {}): UsageRecord {
  return {
    requestId: `req-${String(n).padStart(4, '0')}`,
    time,
    keyId: 'key-a',
    group: 'default',
    endpoint: 'chat',
    requestedModel: 'gpt-4o',
    upstreamModel: 'gpt-4o',
    channelId: 'ch-1',
    attempts: [{ channelId: 'ch-1', status: 200 }],
    status: 200,
    promptTokens: 10,
    completionTokens: 5,
    totalTokens: 15,
    durationMs: 100,
    stream: false,
    clientGone: false,
    ...fields,
  };
}

/** An in-memory usage table that answers Query as DynamoDB does (sk range, newest first, Limit, start key). */
function fakeUsageStore(records: readonly (UsageRecord | Record<string, unknown>)[]) {
  const items = records.map((r) => ({
    ...r,
    ...usageKeys(r as UsageRecord),
    expiresAt: 1,
  })) as Record<string, unknown>[];
  const calls: { day: string; limit: number }[] = [];
  const store: UsageStore = {
    async queryDay(day, range, limit, start) {
      calls.push({ day, limit });
      const sorted = items
        .filter((i) => i.day === day && (i.sk as string) >= range.fromSk && (i.sk as string) <= range.toSk)
        .sort((a, b) => ((a.sk as string) < (b.sk as string) ? 1 : -1));
      const from = start === undefined ? 0 : sorted.findIndex((i) => i.sk === start.sk) + 1;
      const page = sorted.slice(from, from + limit);
      const more = from + limit < sorted.length;
      const last = page.at(-1);
      return { items: page, ...(more && last ? { next: { day, sk: last.sk } } : {}) };
    },
  };
  return { store, calls };
}

const query = (fields: Partial<ReturnType<typeof parseUsageQuery>> = {}) => ({
  from: new Date('2026-11-26T00:00:00.000Z'),
  to: new Date('2026-11-27T23:59:59.999Z'),
  page: 1,
  perPage: 20,
  ...fields,
});

describe('parseUsageQuery', () => {
  it('defaults to the 24 hours before now, page 1 of 20, no filter', () => {
    expect(parseUsageQuery(null, NOW)).toEqual({
      from: new Date('2026-11-26T12:00:00.000Z'),
      to: NOW,
      page: 1,
      perPage: 20,
    });
  });

  it('reads ISO dates, ISO times with or without a zone, and epoch seconds', () => {
    expect(parseTime('2026-11-20')).toEqual(new Date('2026-11-20T00:00:00.000Z'));
    expect(parseTime('2026-11-20T10:30')).toEqual(new Date('2026-11-20T10:30:00.000Z'));
    expect(parseTime('2026-11-20T10:30:00+02:00')).toEqual(new Date('2026-11-20T08:30:00.000Z'));
    expect(parseTime('1795000000')).toEqual(new Date(1_795_000_000_000));
    expect(
      parseUsageQuery({ from: ['2026-11-20'], to: ['1796000000'], keyId: ['k'], model: ['m'], channelId: ['c'] }, NOW),
    ).toMatchObject({ from: new Date('2026-11-20T00:00:00.000Z'), keyId: 'k', model: 'm', channelId: 'c' });
  });

  it('refuses an unknown or repeated parameter, naming it, so a filter is never silently ignored', () => {
    expect(() => parseUsageQuery({ key_id: ['k'] }, NOW)).toThrow(
      /^Unknown query parameter "key_id"; the usage call takes from, to, keyId, model, channelId, page, per_page$/,
    );
    expect(() => parseUsageQuery({ model: ['a', 'b'] }, NOW)).toThrow(
      /^Query parameter model is given more than once$/,
    );
  });

  it('refuses unreadable times, from after to, a period over 31 days and per_page outside 1-100', () => {
    const bad: [Record<string, string[]>, RegExp][] = [
      [{ from: ['yesterday'] }, /^from must be an ISO 8601 time/],
      [{ to: ['2026-13-45'] }, /^to must be an ISO 8601 time/],
      [{ from: ['2026-11-27T13:00:00Z'] }, /^from must not be after to$/],
      [{ from: ['2026-10-01'] }, new RegExp(`at most ${MAX_RANGE_DAYS} days`)],
      [{ per_page: ['0'] }, /^per_page must be a whole number from 1 to 100$/],
      [{ per_page: ['101'] }, /^per_page must be a whole number from 1 to 100$/],
      [{ page: ['-1'] }, /^page must be a whole number from 1$/],
    ];
    for (const [parameters, message] of bad) {
      expect(() => parseUsageQuery(parameters, NOW), JSON.stringify(parameters)).toThrow(message);
      try {
        parseUsageQuery(parameters, NOW);
      } catch (error) {
        expect(error).toBeInstanceOf(ProxyApiError);
        expect((error as ProxyApiError).httpStatus).toBe(400);
      }
    }
  });
});

describe('readUsage', () => {
  it('walks the UTC days of the period newest first, in any year', () => {
    expect(daysNewestFirst(new Date('2026-02-27T23:00:00Z'), new Date('2026-03-01T01:00:00Z'))).toEqual([
      '2026-03-01',
      '2026-02-28',
      '2026-02-27',
    ]);
    expect(daysNewestFirst(new Date('0050-01-01T10:00:00Z'), new Date('0050-01-02T00:00:00Z'))).toEqual([
      '0050-01-02',
      '0050-01-01',
    ]);
  });

  it('answers the records of the period newest first, with totals per channel and per model', async () => {
    const { store, calls } = fakeUsageStore([
      usage(1, '2026-11-26T08:00:00.000Z'),
      usage(2, '2026-11-27T09:00:00.000Z', {
        requestedModel: 'claude',
        channelId: 'ch-2',
        attempts: [
          { channelId: 'ch-1', status: 500, errorClass: 'server' },
          { channelId: 'ch-2', status: 200 },
        ],
      }),
      usage(3, '2026-11-27T10:00:00.000Z', {
        status: 503,
        channelId: undefined,
        attempts: [{ channelId: 'ch-1', status: 0, errorClass: 'connect' }],
        promptTokens: undefined,
        completionTokens: undefined,
        totalTokens: undefined,
      }),
      usage(4, '2026-11-27T11:00:00.000Z', {
        stream: true,
        promptTokens: undefined,
        completionTokens: undefined,
        totalTokens: undefined,
      }),
      // Outside the period: never read.
      usage(5, '2026-11-25T23:59:59.999Z'),
    ]);

    const report = await readUsage(query(), { store, logger });

    expect(calls.map((c) => c.day)).toEqual(['2026-11-27', '2026-11-26']);
    expect(report.records.map((r) => r.requestId)).toEqual(['req-0004', 'req-0003', 'req-0002', 'req-0001']);
    expect(report.total).toBe(4);
    expect(report.truncated).toBe(false);
    expect(report.totals).toEqual({
      requests: 4,
      errors: 1,
      failovers: 1,
      promptTokens: 20,
      completionTokens: 10,
      totalTokens: 30,
      unknownUsage: 1,
    });
    expect(report.byChannel).toEqual([
      expect.objectContaining({ channelId: 'ch-1', requests: 2, errors: 0, attempts: 4, failedAttempts: 2 }),
      // Ties in requests are ordered by channel id, the row of requests no channel answered first.
      expect.objectContaining({ channelId: null, requests: 1, errors: 1, attempts: 0 }),
      expect.objectContaining({ channelId: 'ch-2', requests: 1, failovers: 1, attempts: 1, failedAttempts: 0 }),
    ]);
    expect(report.byModel).toEqual([
      expect.objectContaining({ model: 'gpt-4o', requests: 3, errors: 1, unknownUsage: 1 }),
      expect.objectContaining({ model: 'claude', requests: 1, failovers: 1, totalTokens: 15 }),
    ]);
  });

  it('filters by key, model (requested or upstream) and channel (answered or attempted), and pages', async () => {
    const { store } = fakeUsageStore([
      usage(1, '2026-11-27T01:00:00.000Z', { keyId: 'key-b' }),
      usage(2, '2026-11-27T02:00:00.000Z', { upstreamModel: 'gpt-4o-2024' }),
      usage(3, '2026-11-27T03:00:00.000Z', {
        channelId: 'ch-9',
        attempts: [
          { channelId: 'ch-7', status: 429 },
          { channelId: 'ch-9', status: 200 },
        ],
      }),
      usage(4, '2026-11-27T04:00:00.000Z'),
    ]);
    const ids = async (fields: Partial<ReturnType<typeof query>>) =>
      (await readUsage(query(fields), { store, logger })).records.map((r) => r.requestId);

    expect(await ids({ keyId: 'key-b' })).toEqual(['req-0001']);
    expect(await ids({ model: 'gpt-4o-2024' })).toEqual(['req-0002']);
    expect(await ids({ channelId: 'ch-7' })).toEqual(['req-0003']);
    expect(await ids({ perPage: 2, page: 2 })).toEqual(['req-0002', 'req-0001']);
    const paged = await readUsage(query({ perPage: 1, page: 9 }), { store, logger });
    expect({ records: paged.records, total: paged.total }).toEqual({ records: [], total: 4 });
  });

  it("labels each channel row with the channel's name and provider, leaving out channels that no longer exist", async () => {
    const { store } = fakeUsageStore([
      usage(1, '2026-11-27T01:00:00.000Z', { channelId: 'ch-1' }),
      usage(2, '2026-11-27T02:00:00.000Z', { channelId: 'ch-gone', attempts: [{ channelId: 'ch-gone', status: 200 }] }),
    ]);
    const asked: string[][] = [];
    const channelLabels = async (ids: readonly string[]) => {
      asked.push([...ids]);
      return new Map([['ch-1', { name: 'openai-main', provider: 'openai' }]]);
    };

    const report = await readUsage(query(), { store, logger, channelLabels });

    expect(asked).toEqual([['ch-1', 'ch-gone']]);
    expect(report.byChannel.map((row) => [row.channelId, row.name, row.provider])).toEqual([
      ['ch-1', 'openai-main', 'openai'],
      ['ch-gone', undefined, undefined],
    ]);
  });

  it('reads at most MAX_RECORDS_READ records and says truncated', async () => {
    const many = Array.from({ length: MAX_RECORDS_READ + 5 }, (_, i) =>
      usage(i, new Date(Date.UTC(2026, 10, 27, 0, 0, 0, i)).toISOString()),
    );
    const { store, calls } = fakeUsageStore(many);

    const report = await readUsage(query({ perPage: 1 }), { store, logger });

    expect(report).toMatchObject({ total: MAX_RECORDS_READ, truncated: true });
    expect(report.records[0]?.requestId).toBe(`req-${MAX_RECORDS_READ + 4}`);
    expect(calls.every((c) => c.limit <= 1_000 && c.limit > 0)).toBe(true);
  });

  it('shows only the fields of a usage record and skips items that are not records', async () => {
    const { store } = fakeUsageStore([
      { ...usage(1, '2026-11-27T01:00:00.000Z'), key: 'sk-must-never-show', body: '{"messages":[]}' },
      { requestId: 'broken', time: '2026-11-27T02:00:00.000Z' },
    ]);

    const report = await readUsage(query(), { store, logger });

    expect(report.records).toEqual([usage(1, '2026-11-27T01:00:00.000Z')]);
    expect(JSON.stringify(report)).not.toContain('sk-must-never-show');
    expect(toUsageRecord({ requestId: 'x' })).toBeUndefined();
  });
});

describe('testChannel', () => {
  const ok: ChannelTestResult = { ok: true, status: 200, latencyMs: 42.4, model: 'gpt-4o' };
  const repoOf = (channel: StoredChannel | undefined) => ({ get: vi.fn(async () => channel) });

  it("sends the channel's testModel (else its first model) to the tester and answers its result", async () => {
    const channel = reviewChannel(1, { models: ['gpt-4o', 'gpt-4o-mini'], settings: { testModel: 'gpt-4o-mini' } });
    const seen: RelayChannel[] = [];
    const tester: ChannelTester = async (c) => {
      seen.push(c);
      return { ...ok, model: testModelOf(channel) ?? '' };
    };

    const result = await testChannel(channel.id, { repo: repoOf(channel), tester, logger });

    expect(result).toEqual({ ok: true, status: 200, latencyMs: 42, model: 'gpt-4o-mini' });
    expect(seen).toEqual([
      {
        id: channel.id,
        provider: 'openai',
        name: channel.name,
        baseUrl: channel.baseUrl,
        key: channel.key,
        models: channel.models,
        status: 'enabled',
        settings: { testModel: 'gpt-4o-mini' },
      },
    ]);
    expect(testModelOf(reviewChannel(2, { models: ['first', 'second'] }))).toBe('first');
  });

  it("scrubs the channel's key from the upstream's message", async () => {
    const channel = reviewChannel(1, { key: 'sk-test-secret-0123456789abcdef' });
    const tester: ChannelTester = async () =>
      ({
        ok: false,
        status: 401,
        latencyMs: 7,
        model: 'gpt-4o',
        message: `Incorrect API key provided: ${channel.key}`,
        extra: channel.key,
      }) as ChannelTestResult;

    const result = await testChannel(channel.id, { repo: repoOf(channel), tester, logger });

    expect(result).toEqual({
      ok: false,
      status: 401,
      latencyMs: 7,
      model: 'gpt-4o',
      message: 'Incorrect API key provided: sk-\u2026cdef',
    });
    expect(JSON.stringify(result)).not.toContain(channel.key);
  });

  it('sends nothing for a provider the relay cannot serve or a channel without a model', async () => {
    const tester = vi.fn<ChannelTester>(async () => ok);
    const hunyuan = reviewChannel(1, { provider: 'tencent' });
    const noModel = reviewChannel(2, { models: [] });

    expect(await testChannel(hunyuan.id, { repo: repoOf(hunyuan), tester, logger })).toEqual({
      ok: false,
      status: 0,
      latencyMs: 0,
      model: 'gpt-4o',
      message: reasonFor('tencent'),
    });
    expect(await testChannel(noModel.id, { repo: repoOf(noModel), tester, logger })).toMatchObject({
      ok: false,
      message: 'The channel has no model',
    });
    expect(tester).not.toHaveBeenCalled();
  });

  it('answers 404 for an unknown id and 400 for a malformed one, without calling the tester', async () => {
    const tester = vi.fn<ChannelTester>(async () => ok);

    await expect(testChannel('a'.repeat(64), { repo: repoOf(undefined), tester, logger })).rejects.toMatchObject({
      httpStatus: 404,
      message: 'No channel has this id',
    });
    await expect(testChannel('42', { repo: repoOf(undefined), tester, logger })).rejects.toMatchObject({
      httpStatus: 400,
    });
    expect(tester).not.toHaveBeenCalled();
  });
});

describe('auto-disabled channels and the servable mark', () => {
  it('shows an auto-disabled channel with its reason and time, and whether its provider is servable', () => {
    const channel: StoredChannel = {
      ...reviewChannel(1, { status: 'auto-disabled' }),
      statusReason: '3 authentication failures in a row (401 invalid_api_key)',
      statusChangedAt: '2026-11-27T10:00:00.000Z',
    };

    expect(toChannelView(channel)).toMatchObject({
      status: 'auto-disabled',
      statusReason: '3 authentication failures in a row (401 invalid_api_key)',
      statusChangedAt: '2026-11-27T10:00:00.000Z',
      servable: true,
    });
    expect(toChannelView(reviewChannel(2))).not.toHaveProperty('statusReason');
    expect(toChannelView(reviewChannel(3, { provider: 'tencent' }))).toMatchObject({
      servable: false,
      servableReason: reasonFor('tencent'),
    });
  });

  it('knows the OpenAI-compatible providers, Azure, Anthropic, Vertex AI and Bedrock as servable, and nothing else', () => {
    for (const provider of ['openai', 'azure', 'anthropic', 'deepseek', 'ollama', 'gemini', 'vertex-ai', 'aws']) {
      expect(isServableProvider(provider)).toEqual({ servable: true });
    }
    for (const provider of ['xunfei', 'tencent', 'baidu', '']) {
      expect(isServableProvider(provider).servable).toBe(false);
    }
    expect(reasonFor('xunfei')).toMatch(/Spark/);
  });

  it('filters the list by status auto-disabled', () => {
    expect(parseListQuery({ status: ['auto-disabled'] }).filter).toEqual({ status: 'auto-disabled' });
  });

  it('re-enables with an update that stamps the status change and removes the reason', async () => {
    const documentClient = DynamoDBDocumentClient.from(new DynamoDBClient({}));
    const dynamo = mockClient(documentClient);
    const current: StoredChannel = {
      ...reviewChannel(1, { status: 'auto-disabled' }),
      statusReason: 'invalid key',
      statusChangedAt: '2026-11-27T10:00:00.000Z',
    };
    dynamo.on(UpdateCommand).resolves({ Attributes: { ...current, status: 'enabled' } });
    const repo = new ChannelRepository(documentClient, 'channels-test');

    await updateChannel(
      current.id,
      { status: 'enabled' },
      { repo: { ...repo, get: async () => current, update: repo.update.bind(repo) }, now: () => NOW, logger },
    );

    const input = dynamo.commandCalls(UpdateCommand)[0]?.args[0].input;
    expect(input?.UpdateExpression).toMatch(/ REMOVE #statusReason$/);
    expect(Object.values(input?.ExpressionAttributeValues ?? {})).toEqual(
      expect.arrayContaining(['enabled', NOW.toISOString()]),
    );
    expect(input?.ExpressionAttributeNames).toMatchObject({ '#statusReason': 'statusReason' });
  });

  it('leaves the status and its reason alone when an update sends the same status again', async () => {
    const current: StoredChannel = { ...reviewChannel(1, { status: 'disabled' }) };
    const update = vi.fn(async () => current);

    await updateChannel(
      current.id,
      { status: 'disabled', name: 'renamed' },
      {
        repo: { get: async () => current, update },
        now: () => NOW,
        logger,
      },
    );

    expect(update).toHaveBeenCalledWith(current.id, { name: 'renamed' }, NOW.toISOString(), current.updatedAt);
  });
});

beforeEach(() => {
  vi.restoreAllMocks();
});
