import { DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { reviewChannel } from '#test/integration/channel-review.helpers';
import { proxyEvent } from '#test/support/events';
import { startFakeOpenAi } from '#test/support/fake-upstreams';
import { loadHandler } from '#test/support/handler';

// The two handlers as cold starts, over a mocked DynamoDB Document client (one mock for the shared client).
const dynamo = mockClient(DynamoDBDocumentClient);
const env = {
  USAGE_TABLE: 'usage-test',
  CHANNELS_TABLE: 'channels-test',
  RELAY_STATE_TABLE: 'relay-state-test',
  // The fake upstreams listen on loopback, which a base URL may reach only when listed.
  RELAY_ALLOWED_HOSTS: '127.0.0.1',
  LOG_LEVEL: 'SILENT',
};
const usage = await loadHandler<typeof import('#functions/usage/handler')>('#functions/usage/handler', env);
const test = await loadHandler<typeof import('#functions/test-channel/handler')>(
  '#functions/test-channel/handler',
  env,
);
const admin = { scope: 'admin', teamId: '', tmbId: '', tokenId: 'admin' };
const context = { awsRequestId: 'handler-test', functionName: 'handler-test' } as never;

beforeEach(() => {
  dynamo.reset();
});

describe('the usage handler', () => {
  it('queries the usage table day by day, newest first, and answers the envelope', async () => {
    dynamo.on(QueryCommand).resolves({ Items: [] });
    const event = {
      ...proxyEvent('/api/usage', null, admin),
      httpMethod: 'GET',
      multiValueQueryStringParameters: { from: ['2026-11-26'], to: ['2026-11-27T12:00:00Z'] },
    };

    const response = await usage.handler(event, context);

    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body)).toMatchObject({ success: true, data: { total: 0, truncated: false } });
    const inputs = dynamo.commandCalls(QueryCommand).map((call) => call.args[0].input);
    expect(
      inputs.map((input) => [input.TableName, input.ExpressionAttributeValues?.[':day'], input.ScanIndexForward]),
    ).toEqual([
      ['usage-test', '2026-11-27', false],
      ['usage-test', '2026-11-26', false],
    ]);
  });

  it('answers 401 for a caller without the admin scope and reads nothing', async () => {
    const response = await usage.handler(proxyEvent('/api/usage', null, null), context);

    expect(response.statusCode).toBe(401);
    expect(dynamo.calls()).toHaveLength(0);
  });
});

describe('the channel test handler', () => {
  it('answers 404 for an unknown channel after one GetItem of the channels table', async () => {
    dynamo.on(GetCommand).resolves({});
    const event = { ...proxyEvent('/api/channel/x/test', null, admin), pathParameters: { id: 'a'.repeat(64) } };

    const response = await test.handler(event, context);

    expect({ status: response.statusCode, body: JSON.parse(response.body) }).toEqual({
      status: 404,
      body: { success: false, message: 'No channel has this id' },
    });
    expect(dynamo.commandCalls(GetCommand)[0]?.args[0].input).toMatchObject({ TableName: 'channels-test' });
  });

  it('tests a servable channel through the relay against its upstream, answering status and latency, never the key', async () => {
    const upstream = await startFakeOpenAi({ key: 'sk-review-0001-Zq8vLmN3pT' });
    try {
      const channel = reviewChannel(1, { baseUrl: upstream.url, models: ['gpt-4o-mini'] });
      dynamo.on(GetCommand).resolves({ Item: { ...channel, source: JSON.stringify(channel.source) } });
      const event = { ...proxyEvent('/api/channel/x/test', null, admin), pathParameters: { id: channel.id } };

      const response = await test.handler(event, context);

      expect(response.statusCode).toBe(200);
      expect(JSON.parse(response.body).data).toMatchObject({ ok: true, status: 200, model: 'gpt-4o-mini' });
      expect(upstream.requests).toHaveLength(1);
      expect(upstream.requests[0]?.headers.authorization).toBe(`Bearer ${channel.key}`);
      expect(response.body).not.toContain(channel.key);
    } finally {
      await upstream.close();
    }
  });

  it("answers the upstream's refusal of a wrong key as a failed test, with the key scrubbed from the message", async () => {
    const upstream = await startFakeOpenAi({ key: 'another-key-entirely-0000000000' });
    try {
      const channel = reviewChannel(2, { baseUrl: upstream.url, models: ['gpt-4o-mini'] });
      dynamo.on(GetCommand).resolves({ Item: { ...channel, source: JSON.stringify(channel.source) } });
      const event = { ...proxyEvent('/api/channel/x/test', null, admin), pathParameters: { id: channel.id } };

      const response = await test.handler(event, context);

      expect(response.statusCode).toBe(200);
      expect(JSON.parse(response.body).data).toMatchObject({ ok: false, status: 401 });
      expect(response.body).not.toContain(channel.key);
    } finally {
      await upstream.close();
    }
  });
});
