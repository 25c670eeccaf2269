import { createSign } from 'node:crypto';
import type { RelayChannel } from '../contract.ts';
import { ENDPOINT_PATHS, type ProviderAdapter, type TokenPost } from './types.ts';

/*
 * Vertex AI (docs/relay.md, "Providers"): the channel's key is the product's `region|project_id|service-account JSON`
 * (the import builds it from One API's config and New API's key and region; a bare JSON is read too, with the region
 * and project from settings or the JSON); it is exchanged for an access token with Google's OAuth 2.0 JWT-bearer grant
 * (RFC 7523: an RS256-signed assertion of `client_email`, scope cloud-platform, audience `token_uri`), cached until a
 * minute before it expires, and chat goes to Vertex's OpenAI-compatible endpoint,
 * `{base}/v1/projects/{project}/locations/{region}/endpoints/openapi/chat/completions`, as a bearer token. Written from
 * Google's "Using OAuth 2.0 for Server to Server Applications" and Vertex AI's "OpenAI compatibility" references.
 */

export const VERTEX_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';
const DEFAULT_TOKEN_URI = 'https://oauth2.googleapis.com/token';
const DEFAULT_REGION = 'us-central1';

interface ServiceAccount {
  readonly clientEmail: string;
  readonly privateKey: string;
  readonly privateKeyId: string;
  readonly tokenUri: string;
  readonly projectId?: string;
}

/** A Vertex key's parts: `region|project_id|JSON`, or the JSON alone. */
export function splitVertexKey(key: string): { region?: string; project?: string; json: string } {
  const trimmed = key.trim();
  if (trimmed.startsWith('{')) return { json: trimmed };
  const first = trimmed.indexOf('|');
  const second = first < 0 ? -1 : trimmed.indexOf('|', first + 1);
  if (second < 0) return { json: trimmed };
  const region = trimmed.slice(0, first).trim();
  const project = trimmed.slice(first + 1, second).trim();
  return { ...(region ? { region } : {}), ...(project ? { project } : {}), json: trimmed.slice(second + 1) };
}

/** The service account of a channel key; an error that names the missing field, never the key's text. */
export function parseServiceAccount(key: string): ServiceAccount {
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(splitVertexKey(key).json) as Record<string, unknown>;
  } catch {
    throw new Error('the channel key is not a service-account JSON');
  }
  const text = (name: string) =>
    typeof json[name] === 'string' && json[name] !== '' ? (json[name] as string) : undefined;
  const clientEmail = text('client_email');
  const privateKey = text('private_key');
  if (clientEmail === undefined || privateKey === undefined) {
    throw new Error('the service-account JSON has no client_email or private_key');
  }
  const projectId = text('project_id');
  return {
    clientEmail,
    privateKey,
    privateKeyId: text('private_key_id') ?? '',
    tokenUri: text('token_uri') ?? DEFAULT_TOKEN_URI,
    ...(projectId ? { projectId } : {}),
  };
}

const base64url = (value: string | Buffer) => Buffer.from(value).toString('base64url');

/** The signed JWT-bearer assertion for a service account at `nowSeconds`. */
export function serviceAccountAssertion(account: ServiceAccount, nowSeconds: number): string {
  const header = base64url(
    JSON.stringify({ alg: 'RS256', typ: 'JWT', ...(account.privateKeyId ? { kid: account.privateKeyId } : {}) }),
  );
  const claims = base64url(
    JSON.stringify({
      iss: account.clientEmail,
      scope: VERTEX_SCOPE,
      aud: account.tokenUri,
      iat: nowSeconds,
      exp: nowSeconds + 3600,
    }),
  );
  const signature = createSign('RSA-SHA256').update(`${header}.${claims}`).sign(account.privateKey);
  return `${header}.${claims}.${base64url(signature)}`;
}

interface CachedToken {
  readonly token: string;
  readonly expiresAt: number;
}

/** Access tokens by service account, reused until a minute before they expire; one exchange in flight per account. */
export class VertexTokens {
  private readonly cache = new Map<string, CachedToken>();
  private readonly pending = new Map<string, Promise<CachedToken>>();

  constructor(private readonly now: () => number = () => Date.now()) {}

  async token(key: string, post: TokenPost): Promise<string> {
    const account = parseServiceAccount(key);
    const id = `${account.clientEmail}\0${account.privateKeyId}\0${account.tokenUri}`;
    const cached = this.cache.get(id);
    if (cached !== undefined && cached.expiresAt - 60_000 > this.now()) return cached.token;
    let exchange = this.pending.get(id);
    if (exchange === undefined) {
      exchange = this.exchange(account, post).finally(() => this.pending.delete(id));
      this.pending.set(id, exchange);
    }
    const fresh = await exchange;
    this.cache.set(id, fresh);
    return fresh.token;
  }

  clear(): void {
    this.cache.clear();
  }

  private async exchange(account: ServiceAccount, post: TokenPost): Promise<CachedToken> {
    const assertion = serviceAccountAssertion(account, Math.floor(this.now() / 1000));
    const body = new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion });
    const answer = await post(
      account.tokenUri,
      { 'content-type': 'application/x-www-form-urlencoded' },
      body.toString(),
      AbortSignal.timeout(10_000),
    );
    let json: Record<string, unknown> = {};
    try {
      json = JSON.parse(answer.text) as Record<string, unknown>;
    } catch {
      // Named below by status only: the answer may echo the assertion.
    }
    if (answer.status !== 200 || typeof json.access_token !== 'string') {
      throw new Error(`the service account's token exchange answered ${answer.status}`);
    }
    const seconds = typeof json.expires_in === 'number' && json.expires_in > 0 ? json.expires_in : 3600;
    return { token: json.access_token, expiresAt: this.now() + seconds * 1000 };
  }
}

/** The tokens of this execution environment (one cache for the relay's every request). */
export const vertexTokens = new VertexTokens();

function projectOf(channel: RelayChannel): string {
  const fromKey = splitVertexKey(channel.key).project;
  if (fromKey) return fromKey;
  const fromSettings = channel.settings.projectId;
  if (fromSettings) return fromSettings;
  const fromJson = parseServiceAccount(channel.key).projectId;
  if (fromJson) return fromJson;
  throw new Error('the channel names no Vertex AI project (settings.projectId or the key project_id)');
}

/** Vertex's OpenAI-compatible endpoint for a channel; `global` is served without a region prefix. */
export function vertexBaseUrl(channel: RelayChannel): string {
  const region = splitVertexKey(channel.key).region || channel.settings.region || DEFAULT_REGION;
  const host =
    channel.baseUrl.trim() !== ''
      ? channel.baseUrl.trim().replace(/\/+$/, '')
      : region === 'global'
        ? 'https://aiplatform.googleapis.com'
        : `https://${region}-aiplatform.googleapis.com`;
  const project = encodeURIComponent(projectOf(channel));
  return `${host}/v1/projects/${project}/locations/${encodeURIComponent(region)}/endpoints/openapi`;
}

/** Vertex's OpenAI endpoint names models `publisher/model`; a bare name is Google's. */
export const vertexModel = (model: string) => (model.includes('/') ? model : `google/${model}`);

export function vertexAdapter(tokens: VertexTokens = vertexTokens): ProviderAdapter {
  return {
    endpoints: ['chat'],
    streamUsageOption: true,
    buildRequest({ channel, body }) {
      return {
        url: `${vertexBaseUrl(channel)}${ENDPOINT_PATHS.chat}`,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...body, model: vertexModel(String(body.model ?? '')) }),
      };
    },
    async credentialHeaders(channel, post) {
      return { authorization: `Bearer ${await tokens.token(channel.key, post)}` };
    },
  };
}
