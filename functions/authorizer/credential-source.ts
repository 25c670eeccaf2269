import { readFile, stat } from 'node:fs/promises';
import { clearCaches } from '@aws-lambda-powertools/parameters';
import { getSecret } from '@aws-lambda-powertools/parameters/secrets';
import {
  type AccessTokenRecord,
  CredentialFormatError,
  credentialFormatError,
  parseAccessTokensSecret,
  parseAdminKey,
  sha256Hex,
  validateAccessTokens,
} from '#shared/access-tokens';
import { localCredentialsSchema } from '#shared/local-credentials';

/** How a credential is read. */
export interface ReadOptions {
  /** Bypass any cache and read the current value (a token created a moment ago must be seen). */
  readonly fresh?: boolean;
}

/** Where the authorizer finds the admin key and the access tokens (as SHA-256 digests, never plaintext). */
export interface CredentialSource {
  adminKey(options?: ReadOptions): Promise<string>;
  accessTokens(options?: ReadOptions): Promise<AccessTokenRecord[]>;
}

export interface SecretsManagerSourceOptions {
  accessTokensSecretId: string;
  adminKeySecretId: string;
  /** Seconds a secret value is reused before Secrets Manager is asked again. */
  maxAgeS: number;
}

// The cache holds the raw string; re-parsing it only when it changed keeps warm invocations cheap.
function parsedWhileUnchanged<T>(parse: (text: string) => T): (text: string) => T {
  let last: { text: string; value: T } | undefined;
  return (text) => {
    if (last?.text !== text) last = { text, value: parse(text) };
    return last.value;
  };
}

/** Reads both secrets through Powertools' cache; a malformed value throws (the authorizer fails closed). */
export function secretsManagerCredentialSource(options: SecretsManagerSourceOptions): CredentialSource {
  const read = async (secretId: string, what: string, fresh = false): Promise<string> => {
    // No `transform: 'json'`: its parse error would quote the secret into the thrown message.
    // forceFetch reads Secrets Manager and refreshes the cache with what it got.
    const value = await getSecret(secretId, { maxAge: options.maxAgeS, forceFetch: fresh });
    if (typeof value !== 'string') throw new CredentialFormatError(`${what} secret has no string value`);
    return value;
  };
  const parseTokens = parsedWhileUnchanged((text) => parseAccessTokensSecret(text).tokens);
  return {
    adminKey: async (o) => parseAdminKey(await read(options.adminKeySecretId, 'admin key', o?.fresh)),
    accessTokens: async (o) => parseTokens(await read(options.accessTokensSecretId, 'access tokens', o?.fresh)),
  };
}

/**
 * Allows a fresh read of the secrets at most once per `intervalMs` (per execution environment):
 * enough for a token created a moment ago to work on its first request, while a flood of unknown
 * tokens costs Secrets Manager at most one read of each secret per interval.
 */
export function freshReadLimiter(intervalMs: number, now: () => number = () => Date.now()): () => boolean {
  let last = Number.NEGATIVE_INFINITY;
  return () => {
    const t = now();
    if (t - last < intervalMs) return false;
    last = t;
    return true;
  };
}

/** Drops every cached secret value, so the next call reads Secrets Manager again (tests, rotation drills). */
export function clearSecretsCache(): void {
  clearCaches();
}

async function readLocalFile(file: string) {
  const text = await readFile(file, 'utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new CredentialFormatError('local credentials file is not valid JSON');
  }
  const parsed = localCredentialsSchema.safeParse(json);
  if (!parsed.success) throw credentialFormatError('local credentials file', parsed.error);
  return parsed.data;
}

/**
 * Reads the local credentials file (SPEC 6). It is checked on every call, so tokens added by
 * `npm run tokens` work at once; it is parsed and hashed again only when its identity, size or
 * modification time changed (the tool renames a new file into place). Plaintext tokens are hashed
 * here and go no further.
 */
export function localFileCredentialSource(file: string): CredentialSource {
  let cached: { stamp: string; adminKey: string; tokens: AccessTokenRecord[] } | undefined;
  const current = async () => {
    const { ino, size, mtimeMs } = await stat(file);
    const stamp = `${ino}:${size}:${mtimeMs}`;
    if (cached?.stamp !== stamp) {
      const { adminKey, accessTokens } = await readLocalFile(file);
      const tokens = accessTokens.map(({ token, ...record }) => ({ ...record, sha256: sha256Hex(token) }));
      // The secret's schema, so the local run applies the same rules (expiry format, unique ids).
      cached = { stamp, adminKey, tokens: validateAccessTokens({ tokens }, 'local credentials file').tokens };
    }
    return cached;
  };
  // Always current (the file is checked on every call), so a fresh read needs nothing more.
  return {
    adminKey: async () => parseAdminKey((await current()).adminKey),
    accessTokens: async () => (await current()).tokens,
  };
}
