import { describe, expect, it } from 'vitest';
import { MAX_JSON_SETTING_BYTES, mergeSettings, settingsUpdateSchema } from '#functions/update-channel/settings';
import { MAX_CHANNEL_BYTES, updateChannel } from '#functions/update-channel/update-channel';
import type { ChannelSettings } from '#shared/schemas/channel-settings';
import {
  isCredentialValue,
  isSecretHeader,
  isSecretName,
  maskProxyUrl,
  maskSettings,
  secretParts,
} from '#shared/settings-secrets';
import * as z from '#shared/zod';
import {
  FORK_SECRETS,
  reviewChannel,
  SECRET_SETTINGS,
  settingsWithForkSecrets,
  settingsWithSecrets,
} from '#test/integration/channel-review.helpers';
import { testLogger } from '#test/integration/import.helpers';

const paths = (settings: ChannelSettings) => secretParts(settings).map((part) => part.path.join('.'));

describe('which settings are secret', () => {
  it('knows credential headers whatever their case', () => {
    const secret = ['Authorization', 'proxy-authorization', 'api-key', 'X-API-KEY', 'x-goog-api-key', 'Cookie'];
    const more = ['X-Auth-Token', 'x-client-secret', 'X-Signature', 'x-db-password'];
    const plain = ['X-Team', 'Content-Type', 'User-Agent', 'OpenAI-Beta', 'anthropic-version'];

    expect(secret.concat(more).filter((name) => !isSecretHeader(name))).toEqual([]);
    expect(plain.filter(isSecretHeader)).toEqual([]);
  });

  it('knows secret property names in snake_case, kebab-case and camelCase, and leaves ordinary ones', () => {
    const secret = [
      'sk',
      'aws_sk',
      'secret_key',
      'secretAccessKey',
      'apiKey',
      'api-key',
      'private_key',
      'vertex_ai_adc',
    ];
    const more = ['access_token', 'refreshToken', 'password', 'db_passwd', 'credentials', 'client_secret_id', 'key'];
    const plain = [
      'max_tokens',
      'region',
      'ak',
      'access_key_id',
      'project_id',
      'temperature',
      'deployment',
      'keys_total',
    ];

    expect(secret.concat(more).filter((name) => !isSecretName(name))).toEqual([]);
    expect(plain.filter(isSecretName)).toEqual([]);
  });

  it('finds a service account by its private_key, as an object or as JSON text, and a PEM key anywhere', () => {
    const account = { type: 'service_account', private_key: SECRET_SETTINGS.privateKey };

    expect(
      paths({
        extra: {
          adc: account,
          config: { credentials_json: 'x', vertex: JSON.stringify(account) },
          list: [{ pem: SECRET_SETTINGS.privateKey }],
        },
      }),
    ).toEqual(['extra.adc', 'extra.config.credentials_json', 'extra.config.vertex', 'extra.list.0.pem']);
  });

  it("applies the header rule inside an object named like headers, such as Done Hub's header_override", () => {
    expect(
      paths({
        extra: {
          header_override: { 'X-Goog-Api-Key': 'k', 'X-Trace': 'on' },
          plugin: { headers: { 'X-Auth-Token': 't' } },
          custom_parameter: { api_key: 'k', top_p: 1 },
        },
      }),
    ).toEqual([
      'extra.header_override.X-Goog-Api-Key',
      'extra.plugin.headers.X-Auth-Token',
      'extra.custom_parameter.api_key',
    ]);
  });

  it('knows the plural and compound names plugins use, and leaves their neighbours', () => {
    const secret = ['api_keys', 'keys', 'tokens', 'auth_header', 'authHeader', 'access_tokens', 'client_secrets'];
    const plain = ['max_tokens', 'aws_key_type', 'vertex_key_type', 'keys_total', 'header', 'knowledge_id'];

    expect(secret.filter((name) => !isSecretName(name))).toEqual([]);
    expect(plain.filter(isSecretName)).toEqual([]);
  });

  it('knows a credential by its shape, whatever its name, and not text that only mentions one', () => {
    const credentials = [
      'Bearer abc.def-123456',
      'bearer sk-x0123456789',
      'Basic dXNlcjpwYXNz',
      'Token 0123456789abcdef',
      'AWS4-HMAC-SHA256 Credential=AKIA/2026',
      'sk-0123456789abcdef',
      'sk-ant-api03-abcdefghij',
      'sk_live_0123456789',
      'AIzaSyA0123456789abcdefghijklmnopqrstu',
      'hf_0123456789abcdefgh',
      'gsk_0123456789abcdef',
      'ghp_0123456789abcdefghij',
      'xoxb-0123456789-abcdef',
      'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.sig',
    ];
    const plain = [
      'platform',
      'api_key',
      'json',
      'Bearer',
      'use sk-0123456789abcdef here',
      'sk-learn',
      'https://x.test/',
    ];

    expect(credentials.filter((value) => !isCredentialValue(value))).toEqual([]);
    expect(plain.filter(isCredentialValue)).toEqual([]);
  });

  it('masks every secret the forks store, under any name and in any shape, in a read', () => {
    const settings = settingsWithForkSecrets();

    const masked = maskSettings(settings);

    for (const secret of Object.values(FORK_SECRETS)) expect(JSON.stringify(masked)).not.toContain(secret);
    expect(paths(settings)).toEqual([
      'headerOverride.X-Upstream',
      'headerOverride.X-Relay',
      'headerOverride.X-Forward',
      'paramOverride.operations.0.value',
      'extra.api_keys',
      'extra.tokens',
      'extra.auth_header',
      'extra.config.upstream_proxy',
      'extra.plugin.headers.CF-Access-Client-Secret',
      'extra.other',
    ]);
    expect(masked.extra?.config).toEqual({ upstream_proxy: 'http://****@proxy.internal:3128', region: 'us' });
    expect(masked.headerOverride?.['X-Team']).toBe('platform');
    expect(masked.paramOverride).toMatchObject({
      max_tokens: 4096,
      operations: [{ path: 'metadata.api_key', value: 'for\u20261Hh4' }, { value: 0.3 }],
    });
    expect(masked.extra).toMatchObject({
      aws_key_type: 'api_key',
      vertex_key_type: 'json',
      retrieval: { knowledge_id: 'kb-123' },
    });
  });

  it('keeps every fork secret when a client sends back the masks it read, and refuses a mask it did not read', () => {
    const current = settingsWithForkSecrets();
    const read = maskSettings(current);

    const merged = mergeSettings(current, {
      headerOverride: read.headerOverride,
      paramOverride: read.paramOverride,
      extra: read.extra,
    });

    expect(merged).toEqual(current);
    expect(() =>
      mergeSettings(current, { headerOverride: { ...read.headerOverride, 'X-Upstream': 'Bea\u2026Ui0x' } }),
    ).toThrow(/settings\.headerOverride\.X-Upstream looks masked/);
  });

  it('masks a proxy URL only when it carries a user name or password', () => {
    expect(maskProxyUrl('socks5://user:pw@proxy:1080/x')).toBe('socks5://****@proxy:1080/x');
    expect(maskProxyUrl('http://proxy:3128')).toBe('http://proxy:3128');
  });

  it('masks JSON nested deeper than it walks as a whole', () => {
    let deep: unknown = { value: 'not a secret' };
    for (let i = 0; i < 40; i++) deep = { next: deep };

    expect(paths({ extra: { deep } })).toHaveLength(1);
  });

  it('masks a copy and leaves the stored settings as they were', () => {
    const settings = settingsWithSecrets();
    const before = structuredClone(settings);

    const masked = maskSettings(settings);

    expect(settings).toEqual(before);
    for (const secret of Object.values(SECRET_SETTINGS)) expect(JSON.stringify(masked)).not.toContain(secret);
    expect(masked.extra?.api_key).toBe('****');
  });
});

describe('settings in an update', () => {
  it('keeps each field within its bound, JSON settings at 64 KiB', () => {
    const big = { blob: 'x'.repeat(MAX_JSON_SETTING_BYTES) };
    const parsed = z.safeParse(settingsUpdateSchema, { extra: big, paramOverride: { n: 1e200 } });

    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((issue) => issue.message)).toEqual([
      'settings.paramOverride must hold named properties, valid Unicode text and numbers within ±1e125, nested at most 30 deep',
      'settings.extra must be at most 65536 bytes as JSON',
    ]);
  });

  it('replaces and removes only the fields named', () => {
    const current = settingsWithSecrets();

    const merged = mergeSettings(current, { weight: null, priority: 0 });

    const { weight: _removed, ...rest } = current;
    expect(merged).toEqual({ ...rest, priority: 0 });
  });

  it('refuses an update that would make the channel too large to store, and writes nothing', async () => {
    const channel = reviewChannel(1, { settings: { extra: { a: 'x'.repeat(MAX_CHANNEL_BYTES) } } });
    let writes = 0;
    const repo = {
      get: async () => channel,
      update: async () => {
        writes++;
        return channel;
      },
    };

    const update = updateChannel(
      channel.id,
      { settings: { tag: 'more' } },
      { repo, now: () => new Date(), logger: testLogger() },
    );

    await expect(update).rejects.toThrow(/^The channel would be over 380000 bytes after this update/);
    expect(writes).toBe(0);
  });
});
