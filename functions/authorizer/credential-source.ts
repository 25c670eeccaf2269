import { clearCaches } from '@aws-lambda-powertools/parameters';
import { getSecret } from '@aws-lambda-powertools/parameters/secrets';
import {
  CredentialFormatError,
  type CredentialSource,
  parseAccessTokensSecret,
  parseAdminKey,
} from '#shared/access-tokens';

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
