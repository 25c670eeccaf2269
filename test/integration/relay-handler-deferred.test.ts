import { Writable } from 'node:stream';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTable } from '#infra/local/dynamo-engine';
import { ENV } from '#shared/config';
import type { StreamedResponseHead } from '#shared/lambda-streaming';
import { RELAY_METRICS } from '#shared/relay/metrics';
import { toChannelItem } from '#shared/repositories/channels';
import { TABLES } from '#shared/tables';
import { captureOutput } from '#test/support/capture-output';
import { uniqueTableName } from '#test/support/dynamo-engine';
import { emfRecords } from '#test/support/emf';
import { proxyEvent } from '#test/support/events';
import { type FakeUpstream, startFakeOpenAi } from '#test/support/fake-upstreams';
import { loadHandler } from '#test/support/handler';
import { useTestEngine } from '#test/support/test-engine';

/*
 * The `/v1` function makes its Logger and Metrics on their first line instead of at cold start
 * (functions/relay/handler.ts, docs/performance.md "The relay's module load"): nothing may be lost by it. Every
 * request's metrics are still written after its response, and a warning still names its invocation and the cold start.
 */

const db = useTestEngine();
let upstream: FakeUpstream;
beforeAll(async () => {
  upstream = await startFakeOpenAi();
});
afterAll(async () => {
  await upstream.close();
});

const lambdaContext = (awsRequestId: string): Context =>
  ({
    awsRequestId,
    functionName: 'relay',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:relay',
    memoryLimitInMB: '512',
  }) as Context;

const relayCaller = { scope: 'relay', keyId: 'key-1', groups: '["default"]', models: '', ips: '', expiresAt: '' };

/** A response stream as the local server hands it: the head, then the body's text. */
function responseStream() {
  let head: StreamedResponseHead | undefined;
  let text = '';
  const stream = Object.assign(
    new Writable({
      write(chunk: Buffer, _encoding, callback) {
        text += chunk.toString('utf8');
        callback();
      },
    }),
    {
      setResponseHead(next: StreamedResponseHead) {
        head = next;
      },
    },
  );
  return { stream, status: () => head?.statusCode, text: () => text };
}

async function relayFunction() {
  const table = async (def: (typeof TABLES)[keyof typeof TABLES], base: string) => {
    const name = uniqueTableName(base);
    await ensureTable(db.client, name, def);
    return name;
  };
  const channels = await table(TABLES.channels, 'channels');
  const put = (id: string, baseUrl: string, model: string) =>
    db.documents.send(
      new PutCommand({
        TableName: channels,
        Item: toChannelItem({
          id,
          provider: 'openai',
          legacyType: 1,
          name: id,
          baseUrl,
          models: [model],
          key: `sk-${id}`,
          status: 'enabled',
          source: { legacyId: 1, host: 'h', database: 'd' },
          createdAt: '2026-11-27T00:00:00.000Z',
          updatedAt: '2026-11-27T00:00:00.000Z',
          settings: { priority: 0, groups: ['default'] },
        }),
      }),
    );
  await put('c-answers', upstream.url, 'gpt-4o-mini');
  // Nothing listens on port 9 of loopback: every attempt on this channel fails, and the relay warns about it.
  await put('c-refused', 'http://127.0.0.1:9', 'broken-model');
  return loadHandler<typeof import('#functions/relay/handler')>('#functions/relay/handler', {
    [ENV.channelsTable]: channels,
    [ENV.relayStateTable]: await table(TABLES.relayState, 'relayState'),
    [ENV.usageTable]: await table(TABLES.usage, 'usage'),
    [ENV.relayKeysTable]: undefined,
    [ENV.relayAllowedHosts]: '127.0.0.1',
    [ENV.logLevel]: 'INFO',
    [ENV.dynamodbEndpoint]: db.engine.endpoint,
    [ENV.metricsNamespace]: 'Test/Relay',
    AWS_ACCESS_KEY_ID: db.engine.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: db.engine.credentials.secretAccessKey,
    POWERTOOLS_METRICS_DISABLED: 'false',
    // Lambda sets this for an on-demand execution environment; Powertools reports no cold start without it.
    AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
  });
}

/** One invocation as Lambda makes it: the event, the stream, the context; what it wrote, and its output lines. */
async function invoke(handler: Awaited<ReturnType<typeof relayFunction>>['handler'], model: string, requestId: string) {
  const response = responseStream();
  const output = captureOutput();
  try {
    const event = proxyEvent(
      '/v1/chat/completions',
      JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
      relayCaller,
    );
    await handler(event, response.stream, lambdaContext(requestId));
  } finally {
    output.restore();
  }
  const lines = output
    .text()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { status: response.status(), text: response.text(), output: output.text(), lines };
}

describe('the relay function with its Logger and Metrics made on first use', () => {
  it("writes each request's metrics after its response, and a later invocation's warning without the cold-start flag", async () => {
    // prepare
    const { handler } = await relayFunction();

    // act
    const first = await invoke(handler, 'gpt-4o-mini', 'req-1');
    const second = await invoke(handler, 'broken-model', 'req-2');

    // assert: the first request answered, wrote its metrics and logged nothing
    expect(first.status).toBe(200);
    expect(first.text).toContain('Hello from the fake');
    const firstMetrics = emfRecords(first.output);
    expect(firstMetrics.map((r) => [r.raw.channel, r.raw.model])).toEqual([['c-answers', 'gpt-4o-mini']]);
    expect(firstMetrics[0]?.metrics[RELAY_METRICS.requests]?.value).toBe(1);
    expect(firstMetrics[0]?.metrics[RELAY_METRICS.errors]?.value).toBe(0);
    expect(first.lines.filter((line) => 'level' in line)).toEqual([]);

    // the second failed on its channel: its warning carries its invocation, and it is not the cold start
    expect(second.status).toBeGreaterThanOrEqual(500);
    const warnings = second.lines.filter((line) => line.level === 'WARN');
    expect(warnings).toContainEqual(
      expect.objectContaining({
        message: 'relay: attempt failed',
        channelId: 'c-refused',
        function_request_id: 'req-2',
        cold_start: false,
        function_name: 'relay',
      }),
    );
    const secondMetrics = emfRecords(second.output);
    expect(secondMetrics.map((r) => [r.raw.channel, r.metrics[RELAY_METRICS.errors]?.value])).toEqual([
      ['c-refused', 1],
    ]);
  });

  it('marks a warning of the first invocation as the cold start', async () => {
    const { handler } = await relayFunction();

    const first = await invoke(handler, 'broken-model', 'req-cold');

    expect(first.lines.filter((line) => line.level === 'WARN')).toContainEqual(
      expect.objectContaining({ message: 'relay: attempt failed', function_request_id: 'req-cold', cold_start: true }),
    );
  });
});
