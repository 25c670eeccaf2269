import { join } from 'node:path';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { readLocalCredentials } from '#shared/local-credentials';
import { useNpmStart } from '#test/support/npm-start';
import { RELAY_FIXTURE_KEYS, useRelayWorld } from '#test/support/relay-world';

/*
 * The relay as a user meets it (docs/relay.md): `npm start`, channels imported from a One API database in MariaDB whose
 * base URLs point at fake upstreams (OpenAI, Azure OpenAI, Anthropic, written from their API references), relay keys
 * made with `npm run tokens -- relay create`, and OpenAI's official Node SDK as the client, unchanged but for baseURL
 * and the key.
 */

const KEYS = RELAY_FIXTURE_KEYS;

const npm = useNpmStart({ stopAfter: 'file' });
const world = useRelayWorld(npm, { openai: 120, anthropic: 30 }, async (w) => {
  relayKeys.main = (await w.tokens('create', '--name', 'app')).key as string;
  relayKeys.vip = (await w.tokens('create', '--name', 'vip', '--group', 'vip')).key as string;
  relayKeys.limited = (await w.tokens('create', '--name', 'limited', '--models', 'gpt-4o-mini')).key as string;
  relayKeys.elsewhere = (await w.tokens('create', '--name', 'elsewhere', '--ips', '10.0.0.0/8')).key as string;
  const revoked = await w.tokens('create', '--name', 'revoked');
  relayKeys.revoked = revoked.key as string;
  await w.tokens('revoke', '--id', revoked.id as string);
});
const relayKeys: Record<'main' | 'vip' | 'limited' | 'elsewhere' | 'revoked', string> = {
  main: '',
  vip: '',
  limited: '',
  elsewhere: '',
  revoked: '',
};

const client = (apiKey: string) => new OpenAI({ baseURL: `${world.server.url}/v1`, apiKey, maxRetries: 0 });

describe("the relay through npm start, with OpenAI's SDK", () => {
  it("answers a chat through the imported OpenAI channel: mapped model, the channel key, One API's system prompt", async () => {
    const before = world.openai.requests.length;
    const completion = await client(relayKeys.main).chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Say hello' }],
    });

    expect(completion.choices[0]?.message.content).toBe('Hello from the fake');
    // The model the upstream reports, as One API answers.
    expect(completion.model).toBe('gpt-4o-mini-2024-07-18');
    expect(completion.usage?.total_tokens).toBe(18);
    const sent = world.openai.requests.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.path).toBe('/v1/chat/completions');
    expect(sent[0]?.headers.authorization).toBe(`Bearer ${KEYS.openai}`);
    expect(sent[0]?.body?.model).toBe('gpt-4o-mini-2024-07-18');
    expect(sent[0]?.body?.messages).toEqual([
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'Say hello' },
    ]);
  });

  it('streams a chat chunk by chunk as the upstream writes it, with usage when asked', async () => {
    const started = performance.now();
    const stream = await client(relayKeys.main).chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Say hello' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const arrivals: number[] = [];
    let text = '';
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      arrivals.push(performance.now() - started);
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }

    expect(text).toBe('Hello from the fake');
    expect(usage?.total_tokens).toBe(18);
    // The upstream waits 120 ms before each of its 4 content events: chunks that arrived together at the end would
    // come within a few ms of each other; passed on as they come, they are spread over the upstream's writing.
    const contentArrivals = arrivals.slice(1, 5);
    expect((contentArrivals.at(-1) ?? 0) - (contentArrivals[0] ?? 0)).toBeGreaterThan(250);
  });

  it("answers embeddings through the OpenAI channel and lists the models of the key's groups", async () => {
    const embedding = await client(relayKeys.main).embeddings.create({
      model: 'text-embedding-3-small',
      input: 'knowledge',
    });
    const models = await client(relayKeys.main).models.list();
    const vipModels = await client(relayKeys.vip).models.list();
    const ids = models.data.map((m) => m.id);

    // The SDK asks for base64 and decodes it: the vector arrives as the upstream sent it.
    expect(embedding.data[0]?.embedding.map((v) => Number(v.toFixed(4)))).toEqual([0.01, -0.02, 0.03]);
    expect(ids).toEqual(
      expect.arrayContaining(['gpt-4o-mini', 'text-embedding-3-small', 'azure-gpt', 'failover-model']),
    );
    // Not served to this key: another group's model, a disabled channel's, nothing at all.
    expect(ids).not.toContain('vip-model');
    expect(ids).not.toContain('disabled-model');
    expect(vipModels.data.map((m) => m.id)).toEqual(['vip-model']);
  });

  it('answers through the Azure channel: deployment path, api-version and api-key, streamed and not', async () => {
    const before = world.azure.requests.length;
    const plain = await client(relayKeys.main).chat.completions.create({
      model: 'azure-gpt',
      messages: [{ role: 'user', content: 'Hi' }],
    });
    const stream = await client(relayKeys.main).chat.completions.create({
      model: 'azure-gpt',
      messages: [{ role: 'user', content: 'Hi' }],
      stream: true,
    });
    let streamed = '';
    for await (const chunk of stream) streamed += chunk.choices[0]?.delta.content ?? '';

    expect(plain.choices[0]?.message.content).toBe('Hello from the fake');
    expect(streamed).toBe('Hello from the fake');
    const sent = world.azure.requests.slice(before);
    expect(sent).toHaveLength(2);
    for (const request of sent) {
      expect(request.path).toBe('/openai/deployments/gpt-4o/chat/completions');
      expect(request.query.get('api-version')).toBe('2024-10-21');
      expect(request.headers['api-key']).toBe(KEYS.azure);
      expect(request.headers.authorization).toBeUndefined();
    }
  });

  it('answers through the Anthropic channel, converted both ways, streamed and not', async () => {
    const before = world.anthropic.requests.length;
    const plain = await client(relayKeys.main).chat.completions.create({
      model: 'claude-3-5-haiku-latest',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
      ],
    });
    const stream = await client(relayKeys.main).chat.completions.create({
      model: 'claude-3-5-haiku-latest',
      messages: [{ role: 'user', content: 'Hi' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let streamed = '';
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      streamed += chunk.choices[0]?.delta.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }

    expect(plain.object).toBe('chat.completion');
    expect(plain.choices[0]?.message.content).toBe('Hello from the fake');
    expect(plain.usage?.prompt_tokens).toBeGreaterThan(0);
    expect(streamed).toBe('Hello from the fake');
    expect(usage?.completion_tokens).toBeGreaterThan(0);
    const sent = world.anthropic.requests.slice(before);
    expect(sent.map((r) => r.path)).toEqual(['/v1/messages', '/v1/messages']);
    expect(sent[0]?.headers['x-api-key']).toBe(KEYS.anthropic);
    expect(sent[0]?.headers['anthropic-version']).toBe('2023-06-01');
    expect(sent[0]?.body).toMatchObject({ system: 'Be brief.', messages: [{ role: 'user' }] });
    expect(typeof sent[0]?.body?.max_tokens).toBe('number');
  });

  it('fails over from the higher tier to the lower one on a 500, and never on a 400', async () => {
    world.faulty.fault({ kind: 'server-error', status: 500 });
    const beforeBackup = world.openai.requests.length;
    const answered = await client(relayKeys.main).chat.completions.create({
      model: 'failover-model',
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(answered.choices[0]?.message.content).toBe('Hello from the fake');
    expect(world.openai.requests.length).toBe(beforeBackup + 1);

    world.faulty.fault({
      kind: 'status',
      status: 400,
      body: { error: { message: 'bad request', type: 'invalid_request_error' } },
    });
    const refused = await client(relayKeys.main)
      .chat.completions.create({ model: 'failover-model', messages: [{ role: 'user', content: 'Hi' }] })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect(world.openai.requests.length).toBe(beforeBackup + 1);
  });

  it('ends a stream that the upstream drops after its first byte with an error the SDK raises', async () => {
    world.faulty.fault({ kind: 'drop-mid-stream', afterEvents: 2 });
    const stream = await client(relayKeys.main).chat.completions.create({
      model: 'failover-model',
      messages: [{ role: 'user', content: 'Hi' }],
      stream: true,
    });
    const outcome = await (async () => {
      for await (const _chunk of stream) {
        // read to the end
      }
    })().then(
      () => 'completed',
      (error: unknown) => error,
    );

    expect(outcome).toBeInstanceOf(OpenAI.APIError);
  });

  it('never calls a channel whose base URL is the cloud metadata address', async () => {
    const refused = await client(relayKeys.main)
      .chat.completions.create({ model: 'metadata-model', messages: [{ role: 'user', content: 'Hi' }] })
      .catch((error: unknown) => error);

    expect(refused).toBeInstanceOf(OpenAI.APIError);
    expect((refused as InstanceType<typeof OpenAI.APIError>).status).toBeGreaterThanOrEqual(500);
  });

  it("refuses a wrong key, the admin key, a revoked key, a model or an address outside the key's lists", async () => {
    const ask = (key: string, model = 'gpt-4o-mini') =>
      client(key)
        .chat.completions.create({ model, messages: [{ role: 'user', content: 'Hi' }] })
        .then(
          () => 200,
          (error: InstanceType<typeof OpenAI.APIError>) => error.status,
        );
    const accessToken =
      (await readLocalCredentials(join(world.dataDir, 'credentials.json'))).accessTokens[0]?.token ?? '';

    expect(await ask(`sk-${'x'.repeat(48)}`)).toBe(401);
    expect(await ask(world.adminKey)).toBe(401);
    expect(await ask(accessToken)).toBe(401);
    expect(await ask(relayKeys.revoked)).toBe(401);
    expect(await ask(relayKeys.limited, 'azure-gpt')).toBe(403);
    expect(await ask(relayKeys.limited)).toBe(200);
    // The local server sees 127.0.0.1; this key may be used from 10.0.0.0/8 only.
    expect(await ask(relayKeys.elsewhere)).toBe(403);
    // One API accepts its keys without the sk- prefix too.
    expect(await ask(relayKeys.main.slice(3))).toBe(200);
  });

  it('records usage for plain and streamed requests, read back with filters and totals', async () => {
    // Usage records are written after each response; give the last one a moment.
    await new Promise((r) => setTimeout(r, 300));
    const read = async (query: string) => {
      const response = await fetch(`${world.server.url}/api/usage?${query}`, {
        headers: { Authorization: `Bearer ${world.adminKey}` },
      });
      expect(response.status).toBe(200);
      return ((await response.json()) as { data: Record<string, unknown> }).data as {
        records: Record<string, unknown>[];
        totals: Record<string, number>;
      };
    };
    const all = await read('per_page=100');
    const streamed = all.records.filter((r) => r.stream === true && r.requestedModel === 'gpt-4o-mini');
    const plain = all.records.filter((r) => r.stream === false && r.requestedModel === 'gpt-4o-mini');
    const azureOnly = await read('model=azure-gpt');

    expect(all.totals.requests).toBeGreaterThanOrEqual(10);
    expect(streamed[0]).toMatchObject({ promptTokens: 11, completionTokens: 7, totalTokens: 18, status: 200 });
    expect(plain[0]).toMatchObject({ totalTokens: 18, upstreamModel: 'gpt-4o-mini-2024-07-18', status: 200 });
    expect(azureOnly.records.length).toBe(2);
    expect(azureOnly.records.every((r) => r.requestedModel === 'azure-gpt')).toBe(true);
    const failover = all.records.find(
      (r) => r.requestedModel === 'failover-model' && (r.attempts as unknown[]).length === 2 && r.status === 200,
    );
    expect(failover).toBeDefined();
  });

  it("records a key's last use after its requests, shown by the keys API", async () => {
    const response = await fetch(`${world.server.url}/api/keys`, {
      headers: { Authorization: `Bearer ${world.adminKey}` },
    });
    const keys = ((await response.json()) as { data: { name: string; lastUsedAt: string | null }[] }).data;

    expect(keys.find((k) => k.name === 'app')?.lastUsedAt).toEqual(expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/));
    // Never used: refused by the gateway's authorizer before the relay (revoked), so never marked.
    expect(keys.find((k) => k.name === 'revoked')?.lastUsedAt).toBeNull();
  });

  it("never shows a channel key, a relay key or the admin key in the server's log or the usage API", async () => {
    const usage = await (
      await fetch(`${world.server.url}/api/usage?per_page=100`, {
        headers: { Authorization: `Bearer ${world.adminKey}` },
      })
    ).text();
    // The first start prints the new local credentials once, before it listens (docs/local-run.md); the log after that
    // is what every request wrote.
    const log = world.server.output().slice(world.server.output().indexOf('listening on'));
    const secrets = [...Object.values(KEYS), ...Object.values(relayKeys).map((k) => k.slice(3)), world.adminKey];
    expect(log).toContain('"service":"relay"');
    for (const secret of secrets) {
      expect(log).not.toContain(secret);
      expect(usage).not.toContain(secret);
    }
  });
});
