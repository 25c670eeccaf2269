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
 * - `proxyUrl`: the user name and password of a proxy URL.
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
]);
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
  return SECRET_LAST_WORDS.has(last) || SECRET_LAST_WORDS.has(parts.slice(-2).join(''));
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** True when a value is a secret by its shape, whatever its name: a service account or a PEM private key. */
function isSecretValue(value: unknown): boolean {
  if (isObject(value)) return Object.hasOwn(value, 'private_key');
  if (typeof value !== 'string') return false;
  if (PEM_PRIVATE_KEY.test(value)) return true;
  if (!/"private_key"/.test(value)) return false;
  try {
    return isSecretValue(JSON.parse(value));
  } catch {
    return false;
  }
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
function jsonSecrets(value: unknown, path: string[], out: SecretPart[], headers = false): void {
  if (isSecretValue(value) || (path.length > MAX_DEPTH && (isObject(value) || Array.isArray(value)))) {
    out.push({ path, value, masked: maskSecret(value) });
    return;
  }
  const entries: [string, unknown][] = Array.isArray(value)
    ? value.map((item, i) => [String(i), item])
    : isObject(value)
      ? Object.entries(value)
      : [];
  for (const [name, item] of entries) {
    const at = [...path, name];
    const secretName = isSecretName(name) || (headers && isSecretHeader(name));
    if (!Array.isArray(value) && secretName && item !== null && item !== '') {
      out.push({ path: at, value: item, masked: maskSecret(item) });
    } else jsonSecrets(item, at, out, !Array.isArray(value) && /header/i.test(name));
  }
}

/** Every secret part of `settings`, in a stable order. */
export function secretParts(settings: ChannelSettings | undefined): SecretPart[] {
  const out: SecretPart[] = [];
  if (!settings) return out;
  if (typeof settings.proxyUrl === 'string' && maskProxyUrl(settings.proxyUrl) !== settings.proxyUrl) {
    out.push({ path: ['proxyUrl'], value: settings.proxyUrl, masked: maskProxyUrl(settings.proxyUrl) });
  }
  for (const [name, value] of Object.entries(isObject(settings.headerOverride) ? settings.headerOverride : {})) {
    if (isSecretHeader(name) || isSecretValue(value)) {
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
