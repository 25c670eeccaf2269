import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FakeUpstream, startFakeOpenAi } from '#test/support/fake-upstreams';
import { channel, chatRequest, readText, sseDataOf, testRelay } from '#test/support/relay-fixtures';

let first: FakeUpstream;
let second: FakeUpstream;

beforeAll(async () => {
  first = await startFakeOpenAi({ reportModel: 'gpt-4o-mini-2024-07-18' });
  second = await startFakeOpenAi({ reportModel: 'second-model' });
});
afterAll(async () => {
  await first.close();
  await second.close();
});
afterEach(() => {
  first.clearFaults();
  second.clearFaults();
  first.requests.length = 0;
  second.requests.length = 0;
});

/** Two channels: `first` always tried first (higher priority), `second` the fallback. */
function twoTiers() {
  return testRelay([
    channel({ id: 'first', baseUrl: first.url, settings: { priority: 10 } }),
    channel({ id: 'second', baseUrl: second.url, settings: { priority: 0 } }),
  ]);
}

describe('relay answers and failover', () => {
  it('answers a chat request with the model the upstream reports and records usage', async () => {
    // prepare
    const { relay, usage } = twoTiers();
    // act
    const response = await relay.handle(chatRequest({}));
    const body = JSON.parse(await readText(response));
    const record = await response.done;
    // assert
    expect(response.status).toBe(200);
    expect(response.headers['x-request-id']).toMatch(/^req-/);
    expect(body.model).toBe('gpt-4o-mini-2024-07-18');
    expect(record).toMatchObject({
      channelId: 'first',
      status: 200,
      promptTokens: 11,
      completionTokens: 7,
      totalTokens: 18,
    });
    expect(record.attempts).toEqual([{ channelId: 'first', status: 200 }]);
    expect(usage.records).toHaveLength(1);
    relay.close();
  });

  it('hands an in-process caller the parsed answer, recorded as delivered, and never the body as well', async () => {
    // prepare
    const { relay, usage } = twoTiers();
    // act
    const response = await relay.handle(chatRequest({}));
    const answer = response.takeJson?.();
    const record = await response.done;
    // assert
    expect(answer).toMatchObject({ model: 'gpt-4o-mini-2024-07-18', object: 'chat.completion' });
    expect(record).toMatchObject({ channelId: 'first', status: 200, clientGone: false, totalTokens: 18 });
    expect(record.firstByteMs).toBeGreaterThanOrEqual(0);
    expect(usage.records).toHaveLength(1);
    expect(() => response.takeJson?.()).toThrow('already taken');
    await expect(readText(response)).rejects.toThrow('already taken');
    expect(usage.records).toHaveLength(1);
    relay.close();
  });

  it('offers no parsed answer for its own error envelopes', async () => {
    const { relay } = testRelay([]);
    const response = await relay.handle(chatRequest({}));
    expect(response.status).toBe(503);
    expect(response.takeJson).toBeUndefined();
    await readText(response);
    relay.close();
  });

  it('sends the mapped model upstream', async () => {
    // prepare
    const { relay } = testRelay([
      channel({ id: 'm', baseUrl: first.url, models: [], settings: { modelMapping: { 'my-alias': 'gpt-4o' } } }),
    ]);
    // act
    const response = await relay.handle(chatRequest({ model: 'my-alias' }));
    await readText(response);
    const record = await response.done;
    // assert
    expect(first.requests[0]?.body?.model).toBe('gpt-4o');
    expect(record).toMatchObject({ requestedModel: 'my-alias', upstreamModel: 'gpt-4o' });
    relay.close();
  });

  it.each([
    ['429 with Retry-After', { kind: 'rate-limited', retryAfterSeconds: 3 } as const, 'rate-limited', 429],
    ['500', { kind: 'server-error' } as const, 'server', 500],
    ['401 invalid key', { kind: 'invalid-key' } as const, 'auth', 401],
    ['403', { kind: 'status', status: 403 } as const, 'auth', 403],
    ['404', { kind: 'status', status: 404 } as const, 'not-found', 404],
    ['a reset before the first byte', { kind: 'reset' } as const, 'connect', 0],
    ['a slow first byte', { kind: 'slow-first-byte', delayMs: 600 } as const, 'timeout', 0],
    ['a wrong content type', { kind: 'wrong-content-type' } as const, 'server', 200],
  ])('fails over to another channel after %s', async (_name, fault, errorClass, status) => {
    // prepare
    const { relay } = twoTiers();
    const timed = testRelay(
      [
        channel({ id: 'first', baseUrl: first.url, settings: { priority: 10 } }),
        channel({ id: 'second', baseUrl: second.url }),
      ],
      { firstByteTimeoutMs: 200 },
    );
    const subject = fault.kind === 'slow-first-byte' ? timed.relay : relay;
    first.fault(fault);
    // act
    const response = await subject.handle(chatRequest({}));
    const body = JSON.parse(await readText(response));
    const record = await response.done;
    // assert
    expect(response.status).toBe(200);
    expect(body.model).toBe('second-model');
    expect(record.attempts).toEqual([
      { channelId: 'first', status, errorClass },
      { channelId: 'second', status: 200 },
    ]);
    relay.close();
    timed.relay.close();
  });

  it.each([400, 413, 422])('returns a %i as it is, without failing over', async (status) => {
    // prepare
    const { relay } = twoTiers();
    first.fault({
      kind: 'status',
      status,
      body: { error: { message: 'bad request', type: 'invalid_request_error', param: null, code: null } },
    });
    // act
    const response = await relay.handle(chatRequest({}));
    const body = JSON.parse(await readText(response));
    const record = await response.done;
    // assert
    expect(response.status).toBe(status);
    expect(body.error.message).toBe('bad request');
    expect(second.requests).toHaveLength(0);
    expect(record.attempts).toEqual([{ channelId: 'first', status, errorClass: 'client' }]);
  });

  it.each([
    ['a text error', { error: 'model not found' }],
    ['a null error', { error: null }],
    ['an error without a message', { error: { code: 42 } }],
  ])(
    "wraps an upstream's %s in OpenAI's envelope: only an error with its message is passed on as it is",
    async (_, sent) => {
      // prepare
      const { relay } = twoTiers();
      first.fault({ kind: 'status', status: 400, body: sent });
      // act
      const response = await relay.handle(chatRequest({}));
      const body = JSON.parse(await readText(response));
      // assert
      expect(response.status).toBe(400);
      expect(body).toEqual({
        error: { message: JSON.stringify(sent), type: 'upstream_error', param: null, code: 'upstream_400' },
      });
    },
  );

  it('answers embeddings asked with stream: true as JSON, sends no stream upstream, and blames no channel', async () => {
    // prepare
    const { relay, health } = twoTiers();
    const embeddings = (i: number) =>
      chatRequest({}, { endpoint: 'embeddings', body: { model: 'gpt-4o-mini', input: `t${i}`, stream: true } });
    // act
    const responses = [];
    for (let i = 0; i < 4; i++) {
      const response = await relay.handle(embeddings(i));
      responses.push({
        status: response.status,
        type: response.headers['content-type'],
        body: await readText(response),
      });
      await response.done;
    }
    // assert
    expect(responses.map((r) => [r.status, r.type, JSON.parse(r.body).object])).toEqual(
      Array.from({ length: 4 }, () => [200, 'application/json', 'list']),
    );
    expect(first.requests.map((r) => r.body?.stream)).toEqual([undefined, undefined, undefined, undefined]);
    expect(second.requests).toHaveLength(0);
    expect((await health.view()).get('first')).toBeUndefined();
  });

  it('returns the last upstream error, scrubbed of the key, after the last attempt', async () => {
    // prepare
    const key = 'sk-secret-first-0123456789abcdef';
    const { relay } = testRelay([channel({ id: 'first', baseUrl: first.url, key })]);
    first.fault({
      kind: 'status',
      status: 503,
      body: { error: { message: `key ${key} overloaded`, type: 'server_error' } },
    });
    // act
    const response = await relay.handle(chatRequest({}));
    const text = await readText(response);
    // assert
    expect(response.status).toBe(503);
    expect(text).not.toContain(key);
    expect(JSON.parse(text).error.message).toBe('key *** overloaded');
  });

  it('makes at most maxAttempts attempts, never the same channel twice', async () => {
    // prepare
    const channels = ['a', 'b', 'c', 'd'].map((id) => channel({ id, baseUrl: first.url }));
    const { relay } = testRelay(channels, { maxAttempts: 3 });
    first.faultAlways({ kind: 'server-error' });
    // act
    const response = await relay.handle(chatRequest({}));
    await readText(response);
    const record = await response.done;
    // assert
    expect(response.status).toBe(500);
    expect(first.requests).toHaveLength(3);
    expect(new Set(record.attempts.map((a) => a.channelId)).size).toBe(3);
  });

  it('answers 503 naming the model, the group and the reason when no channel serves it', async () => {
    // prepare
    const { relay } = testRelay([channel({ id: 'off', baseUrl: first.url, status: 'auto-disabled' })]);
    // act
    const response = await relay.handle(chatRequest({}));
    const body = JSON.parse(await readText(response));
    // assert
    expect(response.status).toBe(503);
    expect(body.error.message).toBe(
      'no channel serves model gpt-4o-mini for group default: every channel that lists it is disabled',
    );
    expect(body.error).toHaveProperty('type');
    expect(body.error).toHaveProperty('param');
    expect(body.error).toHaveProperty('code');
  });
});

describe('relay streams', () => {
  it('passes events through, asks the upstream for usage and strips the usage chunk the caller did not ask for', async () => {
    // prepare
    const { relay } = twoTiers();
    // act
    const response = await relay.handle(chatRequest({ stream: true }));
    const events = sseDataOf(await readText(response));
    const record = await response.done;
    // assert
    expect(response.headers['content-type']).toContain('text/event-stream');
    expect(first.requests[0]?.body?.stream_options).toEqual({ include_usage: true });
    expect(events.at(-1)).toBe('[DONE]');
    expect(events.some((e) => e !== '[DONE]' && JSON.parse(e).usage)).toBe(false);
    expect(record).toMatchObject({ stream: true, promptTokens: 11, completionTokens: 7, clientGone: false });
    expect(record.firstByteMs).toBeTypeOf('number');
  });

  it('sends no stream_options to an upstream that may reject them, and counts its usage as unknown', async () => {
    // prepare
    const { relay } = testRelay([channel({ id: 'mistral', provider: 'mistral', baseUrl: first.url })]);
    // act
    const response = await relay.handle(chatRequest({ stream: true, stream_options: { include_usage: true } }));
    const events = sseDataOf(await readText(response));
    const record = await response.done;
    // assert
    expect(first.requests[0]?.body).not.toHaveProperty('stream_options');
    expect(events.at(-1)).toBe('[DONE]');
    expect(record.totalTokens).toBeUndefined();
    expect(record.promptTokens).toBeUndefined();
  });

  it('keeps the usage chunk when the caller asked for it', async () => {
    // prepare
    const { relay } = twoTiers();
    // act
    const response = await relay.handle(chatRequest({ stream: true, stream_options: { include_usage: true } }));
    const events = sseDataOf(await readText(response));
    // assert
    const usageChunk = events
      .filter((e) => e !== '[DONE]')
      .map((e) => JSON.parse(e))
      .find((c) => c.usage);
    expect(usageChunk).toMatchObject({ choices: [], usage: { total_tokens: 18 } });
  });

  it('fails over when the stream drops before its first event', async () => {
    // prepare
    const { relay } = twoTiers();
    first.fault({ kind: 'drop-mid-stream', afterEvents: 0 });
    // act
    const response = await relay.handle(chatRequest({ stream: true }));
    const events = sseDataOf(await readText(response));
    const record = await response.done;
    // assert
    expect(events.at(-1)).toBe('[DONE]');
    expect(record.attempts.map((a) => [a.channelId, a.errorClass])).toEqual([
      ['first', 'stream-dropped'],
      ['second', undefined],
    ]);
  });

  it('ends a stream that drops after its first byte with an OpenAI error event and no [DONE]', async () => {
    // prepare
    const { relay } = twoTiers();
    first.fault({ kind: 'drop-mid-stream', afterEvents: 2 });
    // act
    const response = await relay.handle(chatRequest({ stream: true }));
    const events = sseDataOf(await readText(response));
    const record = await response.done;
    // assert
    expect(response.status).toBe(200);
    const last = JSON.parse(events.at(-1) as string);
    expect(last.error).toMatchObject({ type: 'upstream_error', code: 'stream_interrupted' });
    expect(events).not.toContain('[DONE]');
    expect(second.requests).toHaveLength(0);
    expect(record.attempts).toEqual([{ channelId: 'first', status: 200, errorClass: 'stream-dropped' }]);
    expect(record.totalTokens).toBeUndefined();
  });

  it('passes a 20 MB stream through event by event, never holding more than one event', async () => {
    // prepare
    const { relay } = twoTiers();
    first.fault({ kind: 'big-stream', bytes: 20 * 1024 * 1024 });
    // act
    const response = await relay.handle(chatRequest({ stream: true }));
    let total = 0;
    let largest = 0;
    let last = '';
    for await (const chunk of response.body) {
      total += chunk.length;
      largest = Math.max(largest, chunk.length);
      last = Buffer.from(chunk).toString('utf8');
    }
    const record = await response.done;
    // assert
    expect(total).toBeGreaterThan(20 * 1024 * 1024);
    expect(largest).toBeLessThan(20 * 1024);
    expect(last).toBe('data: [DONE]\n\n');
    expect(record.clientGone).toBe(false);
  });

  it('settles done and releases the upstream when the body is abandoned before its first read', async () => {
    // prepare
    const { relay } = twoTiers();
    const closedBefore = first.closedEarly();
    first.fault({ kind: 'big-stream', bytes: 20 * 1024 * 1024 });
    const response = await relay.handle(chatRequest({ stream: true }));
    // act
    await response.body[Symbol.asyncIterator]().return?.();
    const record = await response.done;
    for (let i = 0; i < 100 && first.closedEarly() === closedBefore; i++) await new Promise((r) => setTimeout(r, 10));
    // assert
    expect(record).toMatchObject({ clientGone: true, status: 200, channelId: 'first' });
    expect(first.closedEarly()).toBe(closedBefore + 1);
  });

  it('aborts the upstream request when the client goes away', async () => {
    // prepare
    const { relay } = twoTiers();
    first.fault({ kind: 'big-stream', bytes: 20 * 1024 * 1024 });
    const controller = new AbortController();
    const closedBefore = first.closedEarly();
    // act
    const response = await relay.handle(chatRequest({ stream: true }, { signal: controller.signal }));
    let chunks = 0;
    for await (const _ of response.body) {
      chunks++;
      if (chunks === 3) {
        controller.abort();
        break;
      }
    }
    const record = await response.done;
    for (let i = 0; i < 100 && first.closedEarly() === closedBefore; i++) await new Promise((r) => setTimeout(r, 10));
    // assert
    expect(record.clientGone).toBe(true);
    expect(chunks).toBe(3);
    expect(first.closedEarly()).toBe(closedBefore + 1);
  });
});

describe('relay answers that are not what was asked for', () => {
  it('answers 502 in the OpenAI envelope when every upstream sends HTML instead of JSON', async () => {
    // prepare
    const { relay } = twoTiers();
    first.fault({ kind: 'wrong-content-type' });
    second.fault({ kind: 'wrong-content-type' });
    // act
    const response = await relay.handle(chatRequest({}));
    const body = JSON.parse(await readText(response));
    // assert
    expect(response.status).toBe(502);
    expect(body.error.message).toContain('not JSON (text/html)');
    expect(body.error.message).not.toContain('nginx');
  });

  it('answers 502 when every upstream answers a stream request with something else than an event stream', async () => {
    // prepare
    const { relay } = twoTiers();
    first.fault({ kind: 'wrong-content-type' });
    second.fault({ kind: 'wrong-content-type' });
    // act
    const response = await relay.handle(chatRequest({ stream: true }));
    const body = JSON.parse(await readText(response));
    // assert
    expect(response.status).toBe(502);
    expect(body.error.message).toContain('not text/event-stream');
  });
});
