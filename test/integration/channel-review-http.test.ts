import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import type { ChannelView } from '#shared/channel-view';
import type { StoredChannel } from '#shared/repositories/channels';
import { useTestServer } from '#test/support/local-server';
import {
  channelPath,
  FORK_SECRETS,
  reviewChannel,
  SECRET_SETTINGS,
  settingsWithForkSecrets,
  settingsWithSecrets,
} from './channel-review.helpers.ts';
import { expectData, expectError, expectNoSecrets, useChannelsTable, watchSecrets } from './import-http.helpers.ts';

// docs/channel-review-api.md through HTTP: the local server runs the real authorizer and the five review functions.

const server = useTestServer({ LOG_LEVEL: 'DEBUG' });
const table = useChannelsTable(server);
/** Every exchange and key of this file, searched for whole keys at the end. */
const watch = watchSecrets(server);
const { exchanges, keys, seed } = watch;
const call = (method: string, path: string, json?: unknown, raw?: string) => watch.call({ method, path, json, raw });

const list = async (query = '') =>
  expectData<{ channels: ChannelView[]; total: number }>(await call('GET', `/api/channels/${query}`));
const names = (data: { channels: ChannelView[] }) => data.channels.map((c) => c.name);
const storedById = async () => new Map((await table.scan()).map((c) => [c.id, c]));

/** Twelve channels over three providers, two statuses and a few models, in a known order. */
function catalogue(): StoredChannel[] {
  return [
    reviewChannel(1, { provider: 'openai', name: 'b-openai', models: ['gpt-4o', 'gpt-4o-mini'] }),
    reviewChannel(2, { provider: 'openai', name: 'a-openai', status: 'disabled' }),
    reviewChannel(3, {
      provider: 'anthropic',
      name: 'claude main',
      baseUrl: 'https://api.anthropic.com',
      models: ['claude-3-5-sonnet'],
    }),
    reviewChannel(4, {
      provider: 'anthropic',
      name: 'claude backup',
      baseUrl: 'https://proxy.example.com/anthropic',
      models: ['Claude-3-Haiku'],
    }),
    reviewChannel(5, {
      provider: 'deepseek',
      name: 'ds',
      baseUrl: 'https://api.deepseek.com',
      models: ['deepseek-chat'],
    }),
    // Same name and provider twice: ordered by id.
    reviewChannel(6, { provider: 'openai', name: 'same' }),
    reviewChannel(7, { provider: 'openai', name: 'same' }),
    reviewChannel(8, { provider: 'openai', name: 'c-openai', status: 'disabled', models: ['text-embedding-3-small'] }),
    reviewChannel(9, { provider: 'openai', name: 'd-openai' }),
    reviewChannel(10, { provider: 'openai', name: 'e-openai' }),
    reviewChannel(11, { provider: 'openai', name: 'f-openai' }),
    reviewChannel(12, { provider: 'openai', name: 'g-openai', baseUrl: '' }),
  ];
}

/** The catalogue's names in the list's order: provider, then name, then id. */
function expectedOrder(channels: StoredChannel[]): string[] {
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return [...channels]
    .sort((a, b) => cmp(a.provider, b.provider) || cmp(a.name, b.name) || cmp(a.id, b.id))
    .map((c) => c.name);
}

describe('GET /api/channels/ (list)', () => {
  it('answers the first 10 channels ordered by provider, name and id, with the total', async () => {
    const channels = await seed(catalogue());

    const data = await list();
    const all = await list('?per_page=100');

    expect(data.total).toBe(12);
    expect(names(data)).toEqual(expectedOrder(channels).slice(0, 10));
    expect(names(all)).toEqual(expectedOrder(channels));
    const same = all.channels.filter((c) => c.name === 'same').map((c) => c.id);
    expect(same).toEqual([...same].sort());
    expect(same).toHaveLength(2);
  });

  it('serves /api/channels and /api/channels/ alike', async () => {
    await seed(catalogue());

    const withSlash = await call('GET', '/api/channels/?per_page=3');
    const without = await call('GET', '/api/channels?per_page=3');

    expect(withSlash.status).toBe(200);
    expect(without.text).toBe(withSlash.text);
  });

  it('pages with page and per_page, and answers an empty page with the right total past the end', async () => {
    const channels = await seed(catalogue());
    const order = expectedOrder(channels);

    const second = await list('?page=2&per_page=5');
    const last = await list('?page=3&per_page=5');
    const past = await list('?page=4&per_page=5');
    const far = await list('?page=9007199254740991&per_page=100');

    expect(names(second)).toEqual(order.slice(5, 10));
    expect(names(last)).toEqual(order.slice(10));
    expect(past).toEqual({ channels: [], total: 12 });
    expect(far).toEqual({ channels: [], total: 12 });
  });

  it('takes per_page from 1 to 100 and refuses 0, 101 and non-numbers naming per_page', async () => {
    await seed(catalogue());

    const one = await list('?per_page=1');
    const hundred = await list('?per_page=100');
    const refused = await Promise.all(
      ['0', '101', '-1', '1.5', 'ten', '1e2'].map((v) => call('GET', `/api/channels/?per_page=${v}`)),
    );

    expect(one.channels).toHaveLength(1);
    expect(hundred.channels).toHaveLength(12);
    for (const reply of refused) expectError(reply, 400, /^per_page must be a whole number from 1 to 100$/);
  });

  it('refuses page 0 and a page that is not a whole number, naming page', async () => {
    const refused = await Promise.all(['0', '-2', 'x', '2.0'].map((v) => call('GET', `/api/channels/?page=${v}`)));

    for (const reply of refused) expectError(reply, 400, /^page must be a whole number from 1$/);
  });

  it('filters by provider in any case, and by the groups a channel serves (none set: default)', async () => {
    await seed([
      reviewChannel(1, { provider: 'openai', name: 'vip only', settings: { groups: ['vip'] } }),
      reviewChannel(2, { provider: 'openai', name: 'both', settings: { groups: ['default', 'vip'] } }),
      reviewChannel(3, { provider: 'anthropic', name: 'no groups' }),
    ]);

    const upper = await list('?provider=OpenAI');
    const vip = await list('?group=vip');
    const byDefault = await list('?group=default');
    const vipAnthropic = await list('?group=vip&provider=ANTHROPIC');

    expect(names(upper)).toEqual(['both', 'vip only']);
    expect(names(vip)).toEqual(['both', 'vip only']);
    expect(names(byDefault)).toEqual(['no groups', 'both']);
    expect(vipAnthropic).toEqual({ channels: [], total: 0 });
  });

  it('filters by provider, status, name and legacy_id exactly', async () => {
    await seed(catalogue());

    const byProvider = await list('?provider=anthropic');
    const byStatus = await list('?status=disabled');
    const byName = await list('?name=same');
    const byNamePrefix = await list('?name=sam');
    const byLegacyId = await list('?legacy_id=5');

    expect(names(byProvider)).toEqual(['claude backup', 'claude main']);
    expect(names(byStatus)).toEqual(['a-openai', 'c-openai']);
    expect([byName.total, ...names(byName)]).toEqual([2, 'same', 'same']);
    expect(byNamePrefix).toEqual({ channels: [], total: 0 });
    expect(names(byLegacyId)).toEqual(['ds']);
  });

  it('matches keyword case-insensitively as a substring of name, baseUrl, provider or any model', async () => {
    await seed(catalogue());

    const byName = await list('?keyword=CLAUDE%20MA');
    const byBaseUrl = await list('?keyword=proxy.EXAMPLE');
    const byProvider = await list('?keyword=DeepSe');
    const byModel = await list('?keyword=haiku');
    const bySecondModel = await list('?keyword=4o-MINI');
    const none = await list('?keyword=nothing-like-this');

    expect(names(byName)).toEqual(['claude main']);
    expect(names(byBaseUrl)).toEqual(['claude backup']);
    expect(names(byProvider)).toEqual(['ds']);
    expect(names(byModel)).toEqual(['claude backup']);
    expect(names(bySecondModel)).toEqual(['b-openai']);
    expect(none).toEqual({ channels: [], total: 0 });
  });

  it('combines filters with AND, and treats an empty value as no filter', async () => {
    await seed(catalogue());

    const both = await list('?provider=openai&status=disabled&keyword=embedding');
    const empty = await list('?provider=&status=&name=&legacy_id=&keyword=&page=&per_page=');

    expect(names(both)).toEqual(['c-openai']);
    expect(empty.total).toBe(12);
    expect(empty.channels).toHaveLength(10);
  });

  it('refuses an unknown query parameter, naming it, instead of ignoring a filter', async () => {
    const reply = await call('GET', '/api/channels/?provider=openai&model=gpt-4o');

    expectError(
      reply,
      400,
      /^Unknown query parameter "model"; the list takes page, per_page, provider, status, name, legacy_id, group, keyword$/,
    );
  });

  it('refuses parameters named like Object members (__proto__, toString, constructor) as unknown', async () => {
    const replies = await Promise.all(
      ['__proto__', 'toString', 'constructor'].map((name) => call('GET', `/api/channels/?${name}=1`)),
    );

    expect(replies.map((r) => [r.status, (r.body as { message: string }).message])).toEqual(
      ['__proto__', 'toString', 'constructor'].map((name) => [
        400,
        expect.stringContaining(`Unknown query parameter "${name}"`),
      ]),
    );
  });

  it('refuses a parameter given twice, a bad status, a bad legacy_id and a keyword over 100 characters', async () => {
    const twice = await call('GET', '/api/channels/?status=enabled&status=disabled');
    const status = await call('GET', '/api/channels/?status=on');
    const legacyId = await call('GET', '/api/channels/?legacy_id=abc');
    const keyword = await call('GET', `/api/channels/?keyword=${'k'.repeat(101)}`);
    const longestKeyword = await call('GET', `/api/channels/?keyword=${'k'.repeat(100)}`);

    expectError(twice, 400, /^Query parameter status is given more than once$/);
    expectError(status, 400, /^status must be "enabled", "disabled" or "auto-disabled"$/);
    expectError(legacyId, 400, /^legacy_id must be a whole number from 0$/);
    expectError(keyword, 400, /^keyword must be at most 100 characters$/);
    expect(longestKeyword.status).toBe(200);
  });

  it('masks every key in the list: first 3 and last 4 characters from 24 characters, else ****', async () => {
    const [long, short, twentyThree] = await seed([
      reviewChannel(1, { key: 'sk-abcdefghijklmnop-WXYZ' }),
      reviewChannel(2, { key: 'sk-short-11' }),
      reviewChannel(3, { key: 'sk-12345678901234567890' }),
    ]);

    const data = await list();

    const byId = new Map(data.channels.map((c) => [c.id, c.key]));
    expect(byId.get(long!.id)).toBe('sk-\u2026WXYZ');
    expect(byId.get(short!.id)).toBe('****');
    expect(byId.get(twentyThree!.id)).toBe('****');
  });

  it('answers an empty table with no channels and a total of 0', async () => {
    expect(await list()).toEqual({ channels: [], total: 0 });
  });
});

describe('GET /api/channel/{id} (detail)', () => {
  it('answers every stored field with the key masked and editedAt null', async () => {
    const [channel] = await seed([reviewChannel(1, { key: 'sk-abcdefghijklmnop-WXYZ', models: ['a', 'b'] })]);

    const data = expectData<ChannelView>(await call('GET', channelPath(channel!.id)));

    expect(data).toEqual({ ...channel, key: 'sk-\u2026WXYZ', editedAt: null, servable: true, settings: {} });
  });

  it('finds a channel by the upper-case spelling of its id', async () => {
    const [channel] = await seed([reviewChannel(1)]);

    const data = expectData<ChannelView>(await call('GET', channelPath(channel!.id.toUpperCase())));

    expect(data.id).toBe(channel!.id);
  });

  it('answers 404 for an id that names no channel', async () => {
    const reply = await call('GET', channelPath('f'.repeat(64)));

    expectError(reply, 404, /^No channel has this id$/);
  });

  it('answers 400 for an id that is not 64 hexadecimal characters, such as an AI Proxy number', async () => {
    for (const id of ['5', 'g'.repeat(64), 'a'.repeat(63), 'a'.repeat(65), '%E2%80%A6']) {
      expectError(await call('GET', channelPath(id)), 400, /^id must be a channel id \(64 hexadecimal characters\)$/);
    }
  });

  it('answers the gateway 404 for /api/channel/ without an id', async () => {
    const reply = await call('GET', '/api/channel/');

    expect(reply.status).toBe(404);
    expect(reply.body).toMatchObject({ success: false });
  });
});

describe('PUT /api/channel/{id} (update)', () => {
  it('changes the named fields, stamps editedAt and updatedAt, and answers the channel after the change', async () => {
    const [channel] = await seed([reviewChannel(1)]);
    const before = Date.now();

    const data = expectData<ChannelView>(
      await call('PUT', channelPath(channel!.id), {
        name: '  renamed  ',
        baseUrl: 'https://gateway.example.com/v1/',
        models: [' gpt-4o ', 'o3', 'gpt-4o'],
        status: 'disabled',
      }),
    );

    expect(data).toMatchObject({
      id: channel!.id,
      name: 'renamed',
      baseUrl: 'https://gateway.example.com/v1',
      models: ['gpt-4o', 'o3'],
      status: 'disabled',
      provider: 'openai',
      source: channel!.source,
      createdAt: channel!.createdAt,
    });
    expect(data.editedAt).toBe(data.updatedAt);
    expect(Date.parse(data.editedAt ?? '')).toBeGreaterThanOrEqual(before - 1000);
    const stored = (await storedById()).get(channel!.id);
    expect(stored).toMatchObject({ name: 'renamed', status: 'disabled', key: channel!.key, editedAt: data.editedAt });
  });

  it('changes only what the body names', async () => {
    const [channel] = await seed([reviewChannel(1, { models: ['x', 'y'] })]);

    const data = expectData<ChannelView>(await call('PUT', channelPath(channel!.id), { status: 'disabled' }));

    expect(data).toMatchObject({
      name: channel!.name,
      baseUrl: channel!.baseUrl,
      models: ['x', 'y'],
      status: 'disabled',
    });
  });

  it('stores a new key write-only: the response masks it and the id stays the same', async () => {
    const [channel] = await seed([reviewChannel(1)]);
    const newKey = 'sk-brand-new-key-0123456789-QRST';
    keys.add(newKey);

    const reply = await call('PUT', channelPath(channel!.id), { key: newKey, baseUrl: 'https://other.example.com' });

    const data = expectData<ChannelView>(reply);
    expect([data.id, data.key]).toEqual([channel!.id, 'sk-\u2026QRST']);
    expect((await storedById()).get(channel!.id)?.key).toBe(newKey);
    expect(reply.text).not.toContain(newKey);
  });

  it('leaves the key unchanged when the body sends back its current masked form (a read-modify-write)', async () => {
    const [channel] = await seed([reviewChannel(1)]);
    const read = expectData<ChannelView>(await call('GET', channelPath(channel!.id)));

    const data = expectData<ChannelView>(await call('PUT', channelPath(channel!.id), { ...read, name: 'saved back' }));

    expect(data.name).toBe('saved back');
    expect((await storedById()).get(channel!.id)?.key).toBe(channel!.key);
  });

  it('leaves a short key unchanged when the body sends back ****', async () => {
    const [channel] = await seed([reviewChannel(1, { key: 'sk-short' })]);

    expectData(await call('PUT', channelPath(channel!.id), { key: '****', status: 'disabled' }));

    expect((await storedById()).get(channel!.id)?.key).toBe('sk-short');
  });

  it('refuses any other key that looks masked, and writes nothing', async () => {
    const [channel] = await seed([reviewChannel(1)]);
    const masked = `sk-\u2026${channel!.key.slice(-4)}`;

    const others = [
      await call('PUT', channelPath(channel!.id), { key: masked.replace('sk-', 'sx-'), name: 'x' }),
      await call('PUT', channelPath(channel!.id), { key: '****', name: 'x' }),
      await call('PUT', channelPath(channel!.id), { key: 'abc\u2026defghijklmnop' }),
    ];

    for (const reply of others) expectError(reply, 400, /^key looks masked/);
    expect((await storedById()).get(channel!.id)).toEqual(channel);
  });

  it.each([
    [{ name: '' }, /^name must not be blank$/],
    [{ name: '   ' }, /^name must not be blank$/],
    [{ name: 'n'.repeat(65) }, /^name must be at most 64 characters$/],
    [{ name: 7 }, /^name must be a string$/],
    [{ name: null }, /^name must be a string$/],
    [{ name: 'tab\there' }, /^name must not contain control characters$/],
    [{ baseUrl: 'ftp://files.example.com' }, /^baseUrl must be an http\(s\) URL/],
    [{ baseUrl: 'not a url' }, /^baseUrl must be an http\(s\) URL/],
    [{ baseUrl: 'https://user:pw@example.com' }, /^baseUrl must be an http\(s\) URL without user name or password/],
    [{ baseUrl: ['https://example.com'] }, /^baseUrl must be a string$/],
    [{ models: [] }, /^models must name at least one model$/],
    [{ models: Array.from({ length: 501 }, (_, i) => `m${i}`) }, /^models must name at most 500 models$/],
    [{ models: ['ok', ' '] }, /^models must not hold a blank name$/],
    [{ models: ['ok', 3] }, /^models must hold only strings$/],
    [{ models: 'gpt-4o' }, /^models must be an array of strings$/],
    [{ status: 'on' }, /^status must be "enabled" or "disabled"$/],
    [{ status: 1 }, /^status must be "enabled" or "disabled"$/],
    [{ key: '' }, /^key must not be empty$/],
    [{ key: 'k'.repeat(4097) }, /^key must be at most 4096 characters$/],
    [{ key: 'sk-line\nbreak-0123456789' }, /^key must not contain control characters$/],
    [{ key: 42 }, /^key must be a string$/],
    [{}, /^The body must set at least one of name, baseUrl, models, status, key, settings$/],
    [
      { provider: 'anthropic', id: 'x' },
      /^The body must set at least one of name, baseUrl, models, status, key, settings$/,
    ],
  ])('refuses %j with a 400 naming the field, and writes nothing', async (body, message) => {
    const [channel] = await seed([reviewChannel(1)]);

    const reply = await call('PUT', channelPath(channel!.id), body);

    expectError(reply, 400, message);
    expect((await storedById()).get(channel!.id)).toEqual(channel);
  });

  it('accepts the boundaries: a 64-character name, 500 models, a 4,096-character key and an empty baseUrl', async () => {
    const [channel] = await seed([reviewChannel(1)]);
    const key = `sk-${'k'.repeat(4_093)}`;
    keys.add(key);

    const data = expectData<ChannelView>(
      await call('PUT', channelPath(channel!.id), {
        name: 'n'.repeat(64),
        models: Array.from({ length: 500 }, (_, i) => `m${i}`),
        key,
        baseUrl: '',
      }),
    );

    expect([data.name.length, data.models.length, data.baseUrl, data.key]).toEqual([64, 500, '', 'sk-\u2026kkkk']);
    expect((await storedById()).get(channel!.id)?.key).toBe(key);
  });

  it('refuses a body that is not JSON, not an object, or too large', async () => {
    const [channel] = await seed([reviewChannel(1)]);

    const replies = [
      await call('PUT', channelPath(channel!.id), undefined, '{"name":'),
      await call('PUT', channelPath(channel!.id), ['name']),
      await call('PUT', channelPath(channel!.id), undefined, JSON.stringify({ name: 'x', pad: 'p'.repeat(70_000) })),
    ];

    expectError(replies[0]!, 400, /^The body must be valid JSON$/);
    expectError(replies[1]!, 400, /^The body must be a JSON object$/);
    expectError(replies[2]!, 400, /^The body must be at most 65536 bytes$/);
    expect((await storedById()).get(channel!.id)).toEqual(channel);
  });

  it('answers 404 for an unknown id and creates nothing', async () => {
    const reply = await call('PUT', channelPath('a'.repeat(64)), { name: 'ghost' });

    expectError(reply, 404, /^No channel has this id$/);
    expect(await table.scan()).toEqual([]);
  });
});

describe('DELETE /api/channel/{id} (delete one)', () => {
  it('deletes the channel and answers null; it is gone afterwards', async () => {
    const [gone, kept] = await seed([reviewChannel(1), reviewChannel(2)]);

    const data = expectData(await call('DELETE', channelPath(gone!.id)));
    const after = await call('GET', channelPath(gone!.id));

    expect(data).toBeNull();
    expectError(after, 404, /^No channel has this id$/);
    expect([...(await storedById()).keys()]).toEqual([kept!.id]);
  });

  it('answers 404 for an id that names no channel, also when deleted twice', async () => {
    const [channel] = await seed([reviewChannel(1)]);
    await call('DELETE', channelPath(channel!.id));

    const again = await call('DELETE', channelPath(channel!.id));

    expectError(again, 404, /^No channel has this id$/);
  });

  it('answers 400 for a malformed id and deletes nothing', async () => {
    await seed([reviewChannel(1)]);

    expectError(await call('DELETE', channelPath('12')), 400, /^id must be a channel id/);
    expect(await table.scan()).toHaveLength(1);
  });
});

describe('POST /api/channels/batch_delete (delete many)', () => {
  it('deletes the named channels and counts only those that existed, an id named twice once', async () => {
    const [a, b, c] = await seed([reviewChannel(1), reviewChannel(2), reviewChannel(3)]);

    const data = expectData(
      await call('POST', '/api/channels/batch_delete', [a!.id, b!.id.toUpperCase(), a!.id, 'e'.repeat(64)]),
    );

    expect(data).toEqual({ deleted: 2 });
    expect([...(await storedById()).keys()]).toEqual([c!.id]);
  });

  it('takes 1,000 ids and refuses 1,001 without deleting anything', async () => {
    const channels = await seed(Array.from({ length: 30 }, (_, i) => reviewChannel(i + 1)));
    const ids = channels.map((c) => c.id);
    const filler = (n: number) => Array.from({ length: n }, (_, i) => i.toString(16).padStart(64, '0'));

    const refused = await call('POST', '/api/channels/batch_delete', [...ids, ...filler(1_001 - ids.length)]);
    const countBefore = (await table.scan()).length;
    const accepted = await call('POST', '/api/channels/batch_delete', [...ids, ...filler(1_000 - ids.length)]);

    expectError(refused, 400, /^The body may name at most 1000 ids; it names 1001$/);
    expect(countBefore).toBe(30);
    expect(expectData(accepted)).toEqual({ deleted: 30 });
    expect(await table.scan()).toEqual([]);
  });

  it('answers {"deleted": 0} for an empty array', async () => {
    expect(expectData(await call('POST', '/api/channels/batch_delete', []))).toEqual({ deleted: 0 });
  });

  it('refuses a body that is not a JSON array of ids, naming the bad item, and deletes nothing', async () => {
    const [channel] = await seed([reviewChannel(1)]);

    const notArray = await call('POST', '/api/channels/batch_delete', { ids: [channel!.id] });
    const notJson = await call('POST', '/api/channels/batch_delete', undefined, '[');
    const badItem = await call('POST', '/api/channels/batch_delete', [channel!.id, 17]);

    expectError(notArray, 400, /^The body must be a JSON array$/);
    expectError(notJson, 400, /^The body must be valid JSON$/);
    expectError(badItem, 400, /^ids\[1\] must be a channel id \(64 hexadecimal characters\)$/);
    expect(await table.scan()).toHaveLength(1);
  });
});

describe('settings', () => {
  const secrets = Object.values(SECRET_SETTINGS);
  const remember = () => {
    for (const secret of secrets) keys.add(secret);
    // The PEM as it reads inside JSON text, and its body alone.
    keys.add(JSON.stringify(SECRET_SETTINGS.privateKey).slice(1, -1));
    keys.add('MIIEvQIBADANfixtureonly0123456789');
  };
  const stored = async (id: string) => (await storedById()).get(id);

  it('answers settings in the list and the detail with every secret part masked', async () => {
    remember();
    const [channel] = await seed([reviewChannel(1, { settings: settingsWithSecrets() })]);

    const detail = expectData<ChannelView>(await call('GET', channelPath(channel!.id)));
    const item = (await list()).channels[0];

    expect(item?.settings).toEqual(detail.settings);
    expect(detail.settings).toEqual({
      ...settingsWithSecrets(),
      proxyUrl: 'http://****@proxy.internal:3128',
      headerOverride: { Authorization: 'Bea\u2026Rt4Y', 'X-Team': 'platform' },
      paramOverride: { temperature: 0.2, access_token: 'par\u2026v9Wx' },
      extra: {
        sk: 'aws\u2026i1Op',
        api_key: '****',
        vertex_ai_adc: expect.stringMatching(/^\{"t\u2026/),
        deployment: 'eu-1',
      },
    });
    for (const secret of secrets) expect(JSON.stringify(detail)).not.toContain(secret);
  });

  it('masks every secret the forks store, under any name and in any shape, in the list and the detail', async () => {
    for (const secret of Object.values(FORK_SECRETS)) keys.add(secret);
    const [channel] = await seed([reviewChannel(1, { settings: settingsWithForkSecrets() })]);

    const detail = expectData<ChannelView>(await call('GET', channelPath(channel!.id)));
    const item = (await list()).channels[0];

    expect(item?.settings).toEqual(detail.settings);
    for (const secret of Object.values(FORK_SECRETS)) expect(JSON.stringify([detail, item])).not.toContain(secret);
    expect(detail.settings?.headerOverride?.['X-Team']).toBe('platform');
    expect(detail.settings?.extra).toMatchObject({ aws_key_type: 'api_key', retrieval: { knowledge_id: 'kb-123' } });
  });

  it('reads, filters and updates a channel stored in the earlier form (settings and source as maps)', async () => {
    remember();
    // Written before settings and source were stored as JSON text: both attributes are maps.
    const earlier = reviewChannel(7, { name: 'earlier form', settings: settingsWithSecrets() });
    keys.add(earlier.key);
    await server.documents.send(new PutCommand({ TableName: server.tables.channels, Item: earlier }));
    await seed([reviewChannel(70, { name: 'text form', settings: { weight: 2 } })]);
    const raw = async (id: string) =>
      (await server.documents.send(new GetCommand({ TableName: server.tables.channels, Key: { id } }))).Item;
    const [textForm] = await seed([reviewChannel(8, { name: 'text form 8' })]);
    expect(typeof (await raw(textForm!.id))?.source).toBe('string');
    expect(typeof (await raw(earlier.id))?.source).toBe('object');

    // legacy_id 7 matches the map, not the text form of 70 (whose text starts with the same digit).
    expect(names(await list('?legacy_id=7'))).toEqual(['earlier form']);
    expect(names(await list('?legacy_id=70'))).toEqual(['text form']);
    expect(names(await list('?legacy_id=8'))).toEqual(['text form 8']);
    const detail = expectData<ChannelView>(await call('GET', channelPath(earlier.id)));
    expect(detail.settings).toMatchObject({
      weight: 3,
      groups: ['default', 'vip'],
      proxyUrl: 'http://****@proxy.internal:3128',
    });
    expect((await stored(earlier.id))?.source).toEqual(earlier.source);

    expectData(await call('PUT', channelPath(earlier.id), { settings: { weight: 9 } }));

    expect(typeof (await raw(earlier.id))?.settings).toBe('string');
    expect((await stored(earlier.id))?.settings).toEqual({ ...settingsWithSecrets(), weight: 9 });
    expect(names(await list('?legacy_id=7'))).toEqual(['earlier form']);
  });

  it('keeps every secret when a client saves back the settings it read, with one field changed', async () => {
    remember();
    const [channel] = await seed([reviewChannel(1, { settings: settingsWithSecrets() })]);
    const read = expectData<ChannelView>(await call('GET', channelPath(channel!.id)));

    const reply = await call('PUT', channelPath(channel!.id), { ...read, settings: { ...read.settings, weight: 7 } });

    const data = expectData<ChannelView>(reply);
    expect(data.settings).toEqual({ ...read.settings, weight: 7 });
    expect(data.editedAt).not.toBeNull();
    expect((await stored(channel!.id))?.settings).toEqual({ ...settingsWithSecrets(), weight: 7 });
  });

  it('replaces the fields named, removes those sent as null and keeps the others', async () => {
    const [channel] = await seed([reviewChannel(1, { settings: settingsWithSecrets() })]);

    expectData(
      await call('PUT', channelPath(channel!.id), {
        settings: { tag: null, region: 'eu-west-1', modelMapping: { 'gpt-4': 'gpt-4.1' }, groups: ['vip', 'vip'] },
      }),
    );

    const { tag: _removed, ...rest } = settingsWithSecrets();
    expect((await stored(channel!.id))?.settings).toEqual({
      ...rest,
      region: 'eu-west-1',
      modelMapping: { 'gpt-4': 'gpt-4.1' },
      groups: ['vip'],
    });
  });

  it('stores a new secret write-only: the response masks it', async () => {
    const [channel] = await seed([reviewChannel(1, { settings: settingsWithSecrets() })]);
    const fresh = 'Bearer sk-brand-new-header-0123456789-KLMN';
    keys.add(fresh);

    const data = expectData<ChannelView>(
      await call('PUT', channelPath(channel!.id), { settings: { headerOverride: { 'x-api-key': fresh } } }),
    );

    expect(data.settings.headerOverride).toEqual({ 'x-api-key': 'Bea\u2026KLMN' });
    expect((await stored(channel!.id))?.settings?.headerOverride).toEqual({ 'x-api-key': fresh });
  });

  it('refuses a secret part that looks masked but is not its current mask, naming it, and writes nothing', async () => {
    const [channel] = await seed([reviewChannel(1, { settings: settingsWithSecrets() })]);
    const before = await stored(channel!.id);

    const replies = [
      await call('PUT', channelPath(channel!.id), { settings: { extra: { sk: 'aws\u2026zzzz' } } }),
      await call('PUT', channelPath(channel!.id), { settings: { headerOverride: { Authorization: '****' } } }),
      await call('PUT', channelPath(channel!.id), { settings: { proxyUrl: 'http://****@elsewhere.internal:3128' } }),
      await call('PUT', channelPath(channel!.id), { name: 'x', settings: { paramOverride: { access_token: '****' } } }),
    ];

    expectError(replies[0]!, 400, /^settings\.extra\.sk looks masked; send the whole value or leave it out$/);
    expectError(replies[1]!, 400, /^settings\.headerOverride\.Authorization looks masked/);
    expectError(replies[2]!, 400, /^settings\.proxyUrl looks masked/);
    expectError(replies[3]!, 400, /^settings\.paramOverride\.access_token looks masked/);
    expect(await stored(channel!.id)).toEqual(before);
  });

  it.each([
    [{ settings: 5 }, /^settings must be an object$/],
    [{ settings: { colour: 'blue' } }, /^settings has no field "colour"; the fields are modelMapping, /],
    [{ settings: { priority: 1.5 } }, /^settings\.priority must be a whole number$/],
    [{ settings: { weight: -1 } }, /^settings\.weight must be 0 or more$/],
    [{ settings: { groups: [] } }, /^settings\.groups must name at least one group/],
    [{ settings: { groups: ['a,b'] } }, /^settings\.groups must not hold a comma/],
    [{ settings: { tag: '  ' } }, /^settings\.tag must not be blank \(send null to remove it\)$/],
    [{ settings: { region: 'r'.repeat(257) } }, /^settings\.region must be at most 256 characters$/],
    [{ settings: { systemPrompt: 'a\u0000b' } }, /^settings\.systemPrompt must not contain control characters/],
    [{ settings: { proxyUrl: 'ftp://proxy.internal' } }, /^settings\.proxyUrl must be an http, https, socks5/],
    [{ settings: { modelMapping: { 'gpt-4': '' } } }, /^settings\.modelMapping: each requested and upstream/],
    [{ settings: { modelMapping: ['gpt-4'] } }, /^settings\.modelMapping must be an object$/],
    [{ settings: { headerOverride: { 'X-Bad': 'a\r\nInjected: 1' } } }, /^settings\.headerOverride: each header name/],
    [{ settings: { statusCodeMapping: { '429': '700' } } }, /^settings\.statusCodeMapping: each upstream/],
    [{ settings: { paramOverride: { '': 1 } } }, /^settings\.paramOverride must hold named properties/],
  ])('refuses %j with a 400 naming the field, and writes nothing', async (body, message) => {
    const [channel] = await seed([reviewChannel(1, { settings: settingsWithSecrets() })]);

    const reply = await call('PUT', channelPath(channel!.id), body);

    expectError(reply, 400, message);
    expect((await stored(channel!.id))?.editedAt).toBeUndefined();
  });
});

describe('secrets', () => {
  it('never shows a whole key in any response or log line of this file', () => {
    expect(exchanges.length).toBeGreaterThan(40);
    expect(keys.size).toBeGreaterThan(10);

    expectNoSecrets(exchanges, { server, extra: [...keys].filter((k) => k.length >= 8) });
  });
});
