import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RelayEndpoint } from '#shared/relay/contract';
import { type FakeUpstream, startFakeOpenAi } from '#test/support/fake-upstreams';
import { CALLER, channel, type TestRelay, testRelay } from '#test/support/relay-fixtures';

/*
 * The relay's answers as OpenAI's official SDK reads them, through a bare HTTP front (the real front door is the `/v1`
 * function's; this one only copies the RelayResponse to the socket).
 */

let upstream: FakeUpstream;
let subject: TestRelay;
let front: Server;
let client: OpenAI;

beforeAll(async () => {
  upstream = await startFakeOpenAi({ reportModel: 'gpt-4o-mini-2024-07-18' });
  subject = testRelay(
    [channel({ id: 'only', baseUrl: upstream.url, models: ['gpt-4o-mini', 'text-embedding-3-small'] })],
    {
      maxAttempts: 1,
    },
  );
  let n = 0;
  front = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const controller = new AbortController();
    res.on('close', () => controller.abort());
    if (req.method === 'GET') {
      const models = await subject.relay.listModels(CALLER);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          object: 'list',
          data: models.map((id) => ({ id, object: 'model', created: 0, owned_by: 'relay' })),
        }),
      );
      return;
    }
    const endpoint: RelayEndpoint = req.url?.endsWith('/embeddings') ? 'embeddings' : 'chat';
    const response = await subject.relay.handle({
      requestId: `sdk-${++n}`,
      endpoint,
      body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
      caller: CALLER,
      signal: controller.signal,
    });
    res.writeHead(response.status, response.headers);
    for await (const chunk of response.body) res.write(chunk);
    res.end();
  });
  front.listen(0, '127.0.0.1');
  await once(front, 'listening');
  client = new OpenAI({
    apiKey: 'sk-relay-key',
    baseURL: `http://127.0.0.1:${(front.address() as AddressInfo).port}/v1`,
    maxRetries: 0,
  });
});
afterAll(async () => {
  front.close();
  subject.relay.close();
  await upstream.close();
});
afterEach(() => upstream.clearFaults());

describe('the relay read by the openai SDK', () => {
  it('answers chat, streamed chat, embeddings and the models list', async () => {
    // act
    const completion = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hi' }],
    });
    const stream = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    const embeddings = await client.embeddings.create({ model: 'text-embedding-3-small', input: 'a' });
    const models = await client.models.list();
    // assert
    expect(completion.model).toBe('gpt-4o-mini-2024-07-18');
    expect(completion.usage?.total_tokens).toBe(18);
    expect(text).toBe('Hello from the fake');
    expect(embeddings.data[0]?.embedding).toHaveLength(3);
    expect(models.data.map((m) => m.id)).toEqual(['gpt-4o-mini', 'text-embedding-3-small']);
  });

  it('raises the error event of a stream that drops after its first byte as an APIError', async () => {
    // prepare
    upstream.fault({ kind: 'drop-mid-stream', afterEvents: 2 });
    const stream = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    // act
    const read = async () => {
      for await (const _ of stream) {
        // consumed until the error event
      }
    };
    // assert
    await expect(read()).rejects.toBeInstanceOf(OpenAI.APIError);
  });

  it('raises a 503 with the reason when no channel serves the model', async () => {
    // act
    const call = client.chat.completions.create({
      model: 'unknown-model',
      messages: [{ role: 'user', content: 'hi' }],
    });
    // assert
    await expect(call).rejects.toMatchObject({
      status: 503,
      message: expect.stringContaining('no channel serves model unknown-model for group default'),
    });
  });
});
