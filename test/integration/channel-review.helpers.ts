import { unkeyedChannelId } from '#functions/import-legacygw/identity';
import { ChannelRepository, type StoredChannel } from '#shared/repositories/channels';
import type { TestServer } from '#test/support/local-server';

/** A stored channel as the import would write it; `key` defaults to a long unique key (so it is masked, not hidden). */
export function reviewChannel(
  n: number,
  fields: Partial<Pick<StoredChannel, 'provider' | 'name' | 'baseUrl' | 'models' | 'key' | 'status' | 'settings'>> = {},
): StoredChannel {
  const provider = fields.provider ?? 'openai';
  const baseUrl = fields.baseUrl ?? 'https://api.openai.com';
  const key = fields.key ?? `sk-review-${String(n).padStart(4, '0')}-Zq8vLmN3pT`;
  return {
    id: unkeyedChannelId(provider, baseUrl, key),
    provider,
    legacyType: 1,
    name: fields.name ?? `channel ${String(n).padStart(3, '0')}`,
    baseUrl,
    models: fields.models ?? ['gpt-4o'],
    key,
    status: fields.status ?? 'enabled',
    source: { legacyId: n, host: 'db.internal', database: 'legacy' },
    createdAt: '2026-03-01T10:00:00.000Z',
    updatedAt: '2026-03-01T10:00:00.000Z',
    ...(fields.settings === undefined ? {} : { settings: fields.settings }),
  };
}

/** Whole secret values a settings test stores; every response and log line is searched for them. */
export const SECRET_SETTINGS = {
  authorization: 'Bearer sk-header-secret-Hq7wPz2LmN8vRt4Y',
  awsSecretKey: 'aws-secret-key-Vb3nKx9Qw2Er5Ty8Ui1Op',
  privateKey: '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANfixtureonly0123456789\n-----END PRIVATE KEY-----\n',
  paramToken: 'param-token-Jk4Lm7Np0Qr3St6Uv9Wx',
  proxyPassword: 'proxy-pass-Zx8Cv5Bn2',
  shortSecret: 'sk-tiny-9',
} as const;

/** Settings of every kind, with a secret in each place a secret may sit. */
export function settingsWithSecrets(): NonNullable<StoredChannel['settings']> {
  return {
    modelMapping: { 'gpt-4': 'gpt-4o', 'gpt-3.5-turbo': 'gpt-4o-mini' },
    priority: 10,
    weight: 3,
    groups: ['default', 'vip'],
    tag: 'team-a',
    apiVersion: '2024-10-21',
    region: 'us-east-1',
    proxyUrl: `http://relay:${SECRET_SETTINGS.proxyPassword}@proxy.internal:3128`,
    headerOverride: { Authorization: SECRET_SETTINGS.authorization, 'X-Team': 'platform' },
    paramOverride: { temperature: 0.2, access_token: SECRET_SETTINGS.paramToken },
    statusCodeMapping: { '429': '503' },
    extra: {
      sk: SECRET_SETTINGS.awsSecretKey,
      api_key: SECRET_SETTINGS.shortSecret,
      vertex_ai_adc: {
        type: 'service_account',
        project_id: 'fixture-project',
        private_key: SECRET_SETTINGS.privateKey,
      },
      deployment: 'eu-1',
    },
  };
}

/**
 * Secrets under the names and in the shapes the forks store them (review 5), read from their Go source: New API's
 * `header_override` (any header name; `Bearer …`), `param_override` (plain properties and `operations` whose `path`
 * names the secret, relay/common/override.go at 002380fb), One Hub's and Done Hub's `plugin` (name -> params,
 * model/channel.go at 148cc4de, web/src/views/Channel/type/Plugin.json at 0d2f896f), One API's `config` (`sk`,
 * `vertex_ai_adc`, `upstream_proxy`), and the plural and compound names plugins use.
 */
export const FORK_SECRETS = {
  apiKeys: 'sk-fork-api-keys-Lq2Wm5Rt8Yp1',
  tokens: 'tok-fork-tokens-Ax4Cz7Vb0Nm3',
  authHeader: 'auth-header-Fg6Hj9Kl2Mn5Bv8',
  bearerAnyName: 'Bearer fork-bearer-Qw1Er4Ty7Ui0',
  basicAnyName: 'Basic Zm9yay11c2VyOmZvcmstcGFzcy1Tczk=',
  skAnyName: 'sk-ant-fork-anyname-Pp3Oo6Ii9Uu2',
  operationValue: 'fork-operation-value-Dd5Ff8Gg1Hh4',
  upstreamProxyPassword: 'fork-proxy-pw-Jj7Kk0',
  pluginSecret: 'cf-access-secret-Zz2Xx5Cc8Vv1',
  jsonTextToken: 'fork-json-text-token-Mm9Nn2Bb5',
} as const;

/** Settings holding FORK_SECRETS where each fork puts them, beside values of the same shape that are not secrets. */
export function settingsWithForkSecrets(): NonNullable<StoredChannel['settings']> {
  return {
    headerOverride: {
      'X-Upstream': FORK_SECRETS.bearerAnyName,
      'X-Relay': FORK_SECRETS.basicAnyName,
      'X-Forward': FORK_SECRETS.skAnyName,
      'X-Team': 'platform',
    },
    paramOverride: {
      max_tokens: 4096,
      operations: [
        { path: 'metadata.api_key', mode: 'set', value: FORK_SECRETS.operationValue },
        { path: 'temperature', mode: 'set', value: 0.3 },
      ],
    },
    extra: {
      api_keys: [FORK_SECRETS.apiKeys],
      tokens: FORK_SECRETS.tokens,
      auth_header: FORK_SECRETS.authHeader,
      aws_key_type: 'api_key',
      vertex_key_type: 'json',
      config: {
        upstream_proxy: `http://relay:${FORK_SECRETS.upstreamProxyPassword}@proxy.internal:3128`,
        region: 'us',
      },
      plugin: {
        headers: { 'CF-Access-Client-Id': 'client-id.access', 'CF-Access-Client-Secret': FORK_SECRETS.pluginSecret },
      },
      retrieval: { knowledge_id: 'kb-123' },
      other: JSON.stringify({ auth: { token: FORK_SECRETS.jsonTextToken }, mode: 'x' }),
    },
  };
}

/** Writes channels straight into the local server's table, as an import would. */
export async function seedChannels(server: TestServer, channels: readonly StoredChannel[]): Promise<void> {
  await new ChannelRepository(server.documents, server.tables.channels, { baseDelayMs: 5 }).putMany(channels);
}

/** `/api/channel/<id>` */
export const channelPath = (id: string) => `/api/channel/${id}`;
