import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { getChannel } from '#functions/get-channel/get-channel';
import { listChannels, parseListQuery } from '#functions/list-channels/list-channels';
import type { ChannelView } from '#shared/channel-view';
import { proxySuccess } from '#shared/envelopes/proxy';
import { ChannelRepository, type StoredChannel } from '#shared/repositories/channels';
import { useTestServer } from '#test/support/local-server';
import { reviewChannel } from './channel-review.helpers.ts';
import { testLogger } from './import.helpers.ts';
import { callProxy, expectData, useChannelsTable } from './import-http.helpers.ts';

// docs/channel-review-api.md, "Bounded pages": a page of 100 channels of the largest size the import stores (and of
// channels stored before the limits existed) stays within Lambda's 6 MB response, counted as Lambda counts it.

const LAMBDA_RESPONSE_LIMIT = 6 * 1024 * 1024;
const KIB = 1024;
const server = useTestServer();
const table = useChannelsTable(server, { clearEach: false });

/** The bytes of a Lambda proxy result as Lambda serialises it (the limit counts these, not the body alone). */
const lambdaPayloadBytes = (result: APIGatewayProxyResult) => Buffer.byteLength(JSON.stringify(result));
/** The `data` of a success result. */
const dataOf = <T>(result: APIGatewayProxyResult): T => {
  expect(result.statusCode).toBe(200);
  return (JSON.parse(result.body) as { data: T }).data;
};

/**
 * `count` characters of text that grows once escaped twice: a quote is 1 byte stored, 2 in the body and 4 in the
 * Lambda payload. (A control character grows more, 1 to 7, and is counted by the page budget the same way; quotes
 * keep the seeding within the engines' 16 MB request limit.)
 */
const worst = (count: number, seed: string) => `${seed}${'"'.repeat(Math.max(0, count - seed.length))}`;

/**
 * A channel at every limit of the import: 64-character name, 2 KiB base URL, 1,000 model names in 32 KiB, a
 * 16 KiB key, and five settings fields of 64 KiB each (one per settings column), all in the costliest characters.
 */
function largest(n: number): StoredChannel {
  const channel = reviewChannel(n, { key: `sk-${'k'.repeat(16 * KIB - 8)}-${String(n).padStart(4, '0')}` });
  const field = (tag: string) => worst(64 * KIB - 64, `${tag}-${n}-`);
  return {
    ...channel,
    name: worst(64, `c${n}-`),
    baseUrl: worst(2 * KIB, `https://h${n}.example/`),
    models: Array.from({ length: 1_000 }, (_, i) => worst(32, `m${i}-`)),
    settings: {
      modelMapping: Object.fromEntries(Array.from({ length: 500 }, (_, i) => [worst(60, `a${i}-`), worst(60, 'b-')])),
      systemPrompt: field('prompt'),
      headerOverride: { 'X-Big': field('header') },
      paramOverride: { big: field('param') },
      extra: { big: field('extra') },
    },
  };
}

/** A channel stored before the limits existed: a 380 KB base URL. */
function legacyHuge(n: number): StoredChannel {
  return { ...reviewChannel(n), baseUrl: `https://old${n}.example/${'p'.repeat(380 * KIB)}` };
}

describe('a list page of the largest channels', () => {
  it('answers a page of ordinary channels whole, with no marker', async () => {
    await table.clear();
    for (const channel of [reviewChannel(1), reviewChannel(2)]) {
      await server.documents.send(new PutCommand({ TableName: server.tables.channels, Item: channel }));
    }

    const data = expectData<{ channels: ChannelView[] }>(
      await callProxy(server, { method: 'GET', path: '/api/channels/' }),
    );

    expect(data.channels.map((c) => c.abbreviated)).toEqual([undefined, undefined]);
  });

  it('stays under 6 MB as Lambda counts it, marks the shortened items, and the detail answers one whole', async () => {
    const channels = [
      ...Array.from({ length: 80 }, (_, i) => largest(i + 1)),
      ...Array.from({ length: 20 }, (_, i) => legacyHuge(i + 81)),
    ];
    await table.clear();
    // One PutItem each: 25 items this large would be over a BatchWriteItem's 16 MB.
    for (const channel of channels) {
      await server.documents.send(new PutCommand({ TableName: server.tables.channels, Item: channel }));
    }

    // The functions' cores over the real engine, answered as their handlers answer: the local gateway's 29 s
    // timeout would measure this machine's load, not the response.
    const repo = new ChannelRepository(server.documents, server.tables.channels);
    const page = proxySuccess(
      await listChannels(parseListQuery({ per_page: ['100'] }), { repo, logger: testLogger() }),
    );
    const huge = channels[85] as StoredChannel;
    const detail = proxySuccess(await getChannel(huge.id, { repo }));
    const biggest = channels[0] as StoredChannel;
    const biggestDetail = proxySuccess(await getChannel(biggest.id, { repo }));
    const data = dataOf<{ channels: ChannelView[]; total: number }>(page);
    expect(data.total).toBe(100);
    expect(data.channels).toHaveLength(100);
    expect(lambdaPayloadBytes(page)).toBeLessThan(LAMBDA_RESPONSE_LIMIT);
    expect(data.channels.every((c) => c.abbreviated !== undefined && c.abbreviated.length > 0)).toBe(true);
    const listed = data.channels.find((c) => c.id === huge.id);
    expect(listed?.abbreviated).toContain('baseUrl');
    expect(huge.baseUrl.startsWith(listed?.baseUrl ?? 'x')).toBe(true);
    expect(dataOf<ChannelView>(detail).baseUrl).toBe(huge.baseUrl);
    expect(lambdaPayloadBytes(detail)).toBeLessThan(LAMBDA_RESPONSE_LIMIT);
    const whole = dataOf<ChannelView>(biggestDetail);
    expect([whole.models.length, whole.settings.systemPrompt, whole.abbreviated]).toEqual([
      1_000,
      biggest.settings?.systemPrompt,
      undefined,
    ]);
    expect(lambdaPayloadBytes(biggestDetail)).toBeLessThan(LAMBDA_RESPONSE_LIMIT);
  }, 600_000);
});
