import { HIDDEN_KEY, looksMasked, maskKey } from './mask.ts';
import type { ChannelSettings } from './schemas/channel-settings.ts';

/*
 * Which parts of a channel's settings are secrets (docs/channel-review-api.md, "Secret settings"). A secret part is
 * treated exactly like a key: masked in every read, never logged, write-only in an update and never written back
 * masked. The rule is by name and by shape, never by family, so a family that adds a field is covered as long as
 * its name says what it holds:
 *
 * - `headerOverride`: a header whose name carries a credential (Authorization, Proxy-Authorization, Cookie, api-key,
 *   x-api-key, x-goog-api-key, or any name holding auth, token, secret, key, password, credential or signature);
 * - `paramOverride` and `extra`, at any depth: a property whose name ends in a secret word (`sk`, `key`, `secret`,
 *   `token`, `password`, `adc`, `credentials`, ... in snake_case, kebab-case or camelCase) or holds `secret`,
 *   `password` or `credential`; inside an object named like headers (`extra.header_override`), a credential header;
 *   an object holding a `private_key` (a Vertex AI service account); a string holding a PEM private key or the JSON
 *   text of such an object;
 * - `proxyUrl`: the user name and password of a proxy URL;
 * - whatever its name, a value shaped like a credential: an HTTP credential (`Bearer …`, `Basic …`, `Token …`,
 *   `AWS4-HMAC-SHA256 …`), a provider's key format (`sk-…`, `sk_…`, `AIza…`, `hf_…`, `gsk_…`, `xai-…`, GitHub's
 *   and Slack's tokens, a JWT), in `headerOverride` and at any depth of `paramOverride` and `extra`; there too the user
 *   name and password of any URL, the `value` of an operation whose `path`, `name`, `header`, `key` or `to` names a
 *   secret (New API's `param_override` operations), and JSON text that holds any of these.
 *
 * A whole secret value is masked as a key is (shared/mask.ts); one that is not text (an object) is masked as its
 * JSON text. Erring on the side of masking costs an operator a look at the detail's masked form, never a leak.
 */

const SECRET_HEADER = /auth|cookie|token|secret|key|passw|credential|signature/i;
/** Last words of a property name that make it a secret (`aws_sk`, `apiKey`, `vertex_ai_adc`, `access-token`). */
const SECRET_LAST_WORDS = new Set([
  'sk',
  'key',
  'apikey',
  'secret',
  'secretkey',
  'privatekey',
  'token',
  'accesstoken',
  'password',
  'passwd',
  'pwd',
  'passphrase',
  'adc',
  'credential',
  'credentials',
  'cookie',
  'authorization',
  'auth',
  'signature',
  // Plurals and compounds the forks and their plugins use (`api_keys`, `secrets`, `auth_header`).
  'keys',
  'apikeys',
  'secrets',
  'passwords',
  'cookies',
  'signatures',
  'authheader',
  'authheaders',
  'authorizationheader',
  'bearer',
  'bearertoken',
  'apitokens',
  'accesstokens',
  'authtokens',
  'bearertokens',
  'refreshtokens',
  'sessiontokens',
]);
/** A name that is one of these words alone is a secret (`tokens`, unlike `max_tokens`). */
const SECRET_WHOLE_NAMES = new Set(['tokens']);
/**
 * Values shaped like a credential, whatever their name: an HTTP authorization scheme followed by its credential
 * (schemes are case-insensitive), a provider's key format (OpenAI, Anthropic, Stripe, Groq, Hugging Face, xAI,
 * Perplexity, NVIDIA, Replicate, GitLab, GitHub, Slack, Google), or a JWT. Anchored at the start, so text that
 * mentions one is not taken for one.
 */
const CREDENTIAL_SCHEME =
  /^\s*(?:bearer|basic|digest|token|bot|oauth|key|apikey|api-key|sharedkey|aws4-hmac-sha256|hmac-sha256)\s+\S{4,}/i;
const CREDENTIAL_FORMAT =
  /^\s*(?:(?:sk|rk|gsk|hf|xai|pplx|nvapi|r8|glpat|ghp|gho|ghu|ghs|ghr|github_pat|xox[abprs])[-_][A-Za-z0-9_-]{8,}|AIza[0-9A-Za-z_-]{30,}|eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.)/;
/** A URL with a user name or password. */
const URL_WITH_USER_INFO = /^[a-z][a-z0-9+.-]*:\/\/[^/?#\s]*@/i;
/** Fields of an operation object that name what its `value` is for (New API's param_override operations). */
const OPERATION_TARGETS = ['path', 'name', 'header', 'key', 'to'] as const;
const SECRET_ANYWHERE = /secret|passw|credential/i;
const PEM_PRIVATE_KEY = /PRIVATE KEY-----/;
/** Deeper JSON than this is masked whole rather than walked (a hostile 64 KiB column can nest thousands deep). */
const MAX_DEPTH = 32;

/** True when an override header of this name carries a credential. */
export function isSecretHeader(name: string): boolean {
  return SECRET_HEADER.test(name);
}

/** The words of a property name: split at `_`, `-`, `.`, spaces and camelCase humps, lower-cased. */
function words(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[\s_.\-:/]+/)
    .filter((w) => w !== '')
    .map((w) => w.toLowerCase());
}

/** True when a property of `paramOverride` or `extra` of this name holds a secret. */
export function isSecretName(name: string): boolean {
  if (SECRET_ANYWHERE.test(name)) return true;
  const parts = words(name);
  const last = parts.at(-1);
  if (last === undefined) return false;
  if (parts.length === 1 && SECRET_WHOLE_NAMES.has(last)) return true;
  return SECRET_LAST_WORDS.has(last) || SECRET_LAST_WORDS.has(parts.slice(-2).join(''));
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** True when a text is shaped like a credential (an authorization header's value, a provider's key, a JWT). */
export function isCredentialValue(value: unknown): boolean {
  return typeof value === 'string' && (CREDENTIAL_SCHEME.test(value) || CREDENTIAL_FORMAT.test(value));
}

/**
 * True when a value is a secret by its shape, whatever its name: a service account, a PEM private key, a credential
 * (isCredentialValue), or JSON text that holds a secret by any rule here.
 */
function isSecretValue(value: unknown, depth = 0): boolean {
  if (isObject(value)) return Object.hasOwn(value, 'private_key');
  if (typeof value !== 'string') return false;
  if (PEM_PRIVATE_KEY.test(value) || isCredentialValue(value)) return true;
  const trimmed = value.trimStart();
  if (depth > 0 || (!trimmed.startsWith('{') && !trimmed.startsWith('['))) return false;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return false;
  }
  if (isObject(parsed) && Object.hasOwn(parsed, 'private_key')) return true;
  const inside: SecretPart[] = [];
  jsonSecrets(parsed, [], inside, false, depth + 1);
  return inside.length > 0;
}

/** The masked form of a secret value: a key's mask of its text (an object's JSON text). */
export function maskSecret(value: unknown): string {
  if (typeof value === 'string') return maskKey(value);
  return maskKey(JSON.stringify(value) ?? '');
}

/** A proxy URL with its user name and password replaced by `****`, or the URL itself when it carries neither. */
export function maskProxyUrl(url: string): string {
  const match = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)@/i.exec(url);
  if (!match) return url;
  return `${match[1]}${HIDDEN_KEY}@${url.slice(match[0].length)}`;
}

/** Where a secret part sits: the settings field, then property names down to it. */
export type SecretPath = readonly string[];

/** One secret part: where it is, its whole value, and the masked form a read shows. */
export interface SecretPart {
  readonly path: SecretPath;
  readonly value: unknown;
  readonly masked: string;
}

/**
 * Every secret part of a JSON value under `path` (a `paramOverride` or `extra` field, or part of one). Inside an
 * object named like headers (Done Hub's `extra.header_override`, a plugin's `headers`), names follow the header rule.
 */
function jsonSecrets(value: unknown, path: string[], out: SecretPart[], headers = false, textDepth = 0): void {
  if (isSecretValue(value, textDepth) || (path.length > MAX_DEPTH && (isObject(value) || Array.isArray(value)))) {
    out.push({ path, value, masked: maskSecret(value) });
    return;
  }
  if (typeof value === 'string' && URL_WITH_USER_INFO.test(value)) {
    out.push({ path, value, masked: maskProxyUrl(value) });
    return;
  }
  const entries: [string, unknown][] = Array.isArray(value)
    ? value.map((item, i) => [String(i), item])
    : isObject(value)
      ? Object.entries(value)
      : [];
  const operationValue = isObject(value) && namesSecretTarget(value);
  for (const [name, item] of entries) {
    const at = [...path, name];
    const secretName =
      isSecretName(name) ||
      (headers && isSecretHeader(name)) ||
      (operationValue && name === 'value' && typeof item !== 'number' && typeof item !== 'boolean');
    if (!Array.isArray(value) && secretName && item !== null && item !== '') {
      out.push({ path: at, value: item, masked: maskSecret(item) });
    } else jsonSecrets(item, at, out, !Array.isArray(value) && /header/i.test(name), textDepth);
  }
}

/** True for an operation object (`{"path": "api_key", "mode": "set", "value": …}`) whose target names a secret. */
function namesSecretTarget(operation: Record<string, unknown>): boolean {
  if (!Object.hasOwn(operation, 'value')) return false;
  return OPERATION_TARGETS.some((field) => {
    const target = operation[field];
    if (typeof target !== 'string') return false;
    const last =
      target
        .split(/[./[\]]+/)
        .filter((p) => p !== '')
        .at(-1) ?? '';
    return isSecretName(last) || isSecretHeader(last);
  });
}

/** Every secret part of `settings`, in a stable order. */
export function secretParts(settings: ChannelSettings | undefined): SecretPart[] {
  const out: SecretPart[] = [];
  if (!settings) return out;
  if (typeof settings.proxyUrl === 'string' && maskProxyUrl(settings.proxyUrl) !== settings.proxyUrl) {
    out.push({ path: ['proxyUrl'], value: settings.proxyUrl, masked: maskProxyUrl(settings.proxyUrl) });
  }
  for (const [name, value] of Object.entries(isObject(settings.headerOverride) ? settings.headerOverride : {})) {
    if (isSecretHeader(name) || isSecretValue(value) || (typeof value === 'string' && URL_WITH_USER_INFO.test(value))) {
      out.push({ path: ['headerOverride', name], value, masked: maskSecret(value) });
    }
  }
  jsonSecrets(settings.paramOverride, ['paramOverride'], out);
  jsonSecrets(settings.extra, ['extra'], out);
  return out;
}

/** A copy of `root` with the value at `path` replaced; containers on the way are copied, never mutated. */
export function replaceAt(root: unknown, path: SecretPath, value: unknown): unknown {
  const [head, ...rest] = path;
  if (head === undefined) return value;
  if (Array.isArray(root)) {
    const copy = [...root];
    copy[Number(head)] = replaceAt(root[Number(head)], rest, value);
    return copy;
  }
  if (isObject(root)) return { ...root, [head]: replaceAt(root[head], rest, value) };
  return root;
}

/** The value at `path`, or undefined. */
export function valueAt(root: unknown, path: SecretPath): unknown {
  let at = root;
  for (const name of path) {
    if (Array.isArray(at)) at = at[Number(name)];
    else if (isObject(at) && Object.hasOwn(at, name)) at = at[name];
    else return undefined;
  }
  return at;
}

/** The settings as a read shows them: every secret part masked. Never mutates `settings`. */
export function maskSettings(settings: ChannelSettings): ChannelSettings {
  let masked: unknown = settings;
  for (const part of secretParts(settings)) masked = replaceAt(masked, part.path, part.masked);
  return masked as ChannelSettings;
}

/** True when a value sent for a secret part looks like a masked one (a key's mask, or a proxy URL's `****@`). */
export function looksMaskedSecret(value: unknown): boolean {
  return typeof value === 'string' && (looksMasked(value) || value.includes(`${HIDDEN_KEY}@`));
}

/** A path as a message names it (`settings.extra.aws_sk`); never a value. */
export function pathName(path: SecretPath): string {
  return [
    'settings',
    ...path.map((name) => (/^[\w-]{1,64}$/.test(name) ? name : JSON.stringify(name.slice(0, 64)))),
  ].join('.');
}
