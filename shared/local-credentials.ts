import { randomBytes, randomUUID } from 'node:crypto';
import { chmod, mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { lock } from 'proper-lockfile';
import {
  type AccessTokenRecord,
  CredentialFormatError,
  type CredentialSource,
  credentialFormatError,
  parseAdminKey,
  sha256Hex,
  validateAccessTokens,
} from './access-tokens.ts';
import { ENV, logLevelEnvSchema } from './config.ts';
import * as z from './zod.ts';

/**
 * The local run's credentials file: read by the local server's authorizer and the tokens tool, and by the
 * SAM-only authorizer entry (functions/authorizer/local-handler.ts). Nothing here is imported by a
 * deployed bundle: the deployed authorizer reads Secrets Manager only (test/infra/bundles.test.ts).
 */

/** Environment variable of the SAM-only authorizer entry: where the copied credentials file is. */
export const LOCAL_CREDENTIALS_FILE_ENV = 'LOCAL_CREDENTIALS_FILE';

/** The SAM-only authorizer entry's environment. */
export const localAuthorizerEnvSchema = z.extend(logLevelEnvSchema, {
  [LOCAL_CREDENTIALS_FILE_ENV]: z.string().check(z.trim(), z.minLength(1, 'is required')),
  /** The relay keys table on the local engine; unset = relay keys are not recognised. */
  [ENV.relayKeysTable]: z.optional(z.string().check(z.trim(), z.minLength(1))),
});

/** How errors name the file (never its content: it holds plaintext tokens). */
const WHAT = 'local credentials file';

/** Local-run credentials file (docs/local-run.md): the admin key and plaintext access tokens. */
const nonEmpty = () => z.string().check(z.minLength(1));
export const localCredentialsSchema = z.object({
  adminKey: z.string().check(z.minLength(32)),
  /** The channel-id key of the local run (docs/channel-import.md, "Identity"); added to older files on start. */
  channelIdKey: z.optional(z.string().check(z.minLength(32))),
  accessTokens: z.array(
    z.object({
      id: nonEmpty(),
      token: nonEmpty(),
      teamId: nonEmpty(),
      tmbId: nonEmpty(),
      label: z.optional(z.string()),
      expiresAt: z.optional(z.nullable(z.string())),
    }),
  ),
});
export type LocalCredentials = z.infer<typeof localCredentialsSchema>;
export type LocalAccessToken = LocalCredentials['accessTokens'][number];

/** A new random access token: prefix `kb-` and 32 bytes of entropy (docs/authorization.md). */
export function newAccessTokenValue(): string {
  return `kb-${randomBytes(32).toString('base64url')}`;
}

/** A new random admin key (48 bytes of entropy, 64 characters). */
export function newAdminKeyValue(): string {
  return randomBytes(48).toString('base64url');
}

/** A new 24-hex team or member id for generated local credentials. */
function newHexId(): string {
  return randomBytes(12).toString('hex');
}

/**
 * Reads and validates the credentials file. A missing file rejects with the file system's error
 * (ENOENT); a malformed one with a CredentialFormatError that names the file and the failed rules,
 * never a value.
 */
export async function readLocalCredentials(file: string): Promise<LocalCredentials> {
  const text = await readFile(file, 'utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // JSON.parse's own message quotes part of the input, which here is a plaintext token.
    throw new CredentialFormatError(`${WHAT} ${file} is not valid JSON`);
  }
  const parsed = z.safeParse(localCredentialsSchema, json);
  if (!parsed.success) throw credentialFormatError(`${WHAT} ${file}`, parsed.error);
  return parsed.data;
}

/** Writes the credentials file atomically with mode 0600. */
export async function writeLocalCredentials(file: string, credentials: LocalCredentials): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${randomUUID()}.tmp`;
  await writeFile(tmp, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  await chmod(tmp, 0o600);
  await rename(tmp, file);
}

/**
 * Runs `work` holding the lock of `file` (a `file.lock` directory, proper-lockfile): writers of the file
 * (npm start creating it, overlapping runs of the tokens tool) take turns, so none writes over an edit it
 * did not read. A lock left by a killed process is taken over once it is 10 s stale. Readers need no
 * lock: every write renames a complete file into place.
 */
export async function withLocalCredentialsLock<T>(file: string, work: () => Promise<T>): Promise<T> {
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const release = await lock(file, {
    realpath: false,
    stale: 10_000,
    retries: { retries: 200, minTimeout: 10, maxTimeout: 200, factor: 1.5, randomize: true },
  });
  try {
    return await work();
  } finally {
    await release();
  }
}

async function readOrCreate(file: string): Promise<{ credentials: LocalCredentials; created: boolean }> {
  try {
    const credentials = await readLocalCredentials(file);
    if (credentials.channelIdKey !== undefined) return { credentials, created: false };
    // A file from before keyed channel ids: the key is added once and kept from then on.
    const withKey = { ...credentials, channelIdKey: newAdminKeyValue() };
    await writeLocalCredentials(file, withKey);
    return { credentials: withKey, created: false };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const credentials: LocalCredentials = {
    adminKey: newAdminKeyValue(),
    channelIdKey: newAdminKeyValue(),
    accessTokens: [
      { id: randomUUID(), token: newAccessTokenValue(), teamId: newHexId(), tmbId: newHexId(), label: 'local default' },
    ],
  };
  await writeLocalCredentials(file, credentials);
  return { credentials, created: true };
}

/** Returns the credentials in `file`, creating fresh random ones on first use (under the file's lock). */
export async function loadOrCreateLocalCredentials(
  file: string,
): Promise<{ credentials: LocalCredentials; created: boolean }> {
  try {
    return { credentials: await readLocalCredentials(file), created: false };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  return withLocalCredentialsLock(file, () => readOrCreate(file));
}

/**
 * Changes the credentials in `file` under its lock: reads (creating the file on first use), applies
 * `change`, and writes what it returns; `undefined` writes nothing.
 */
export async function updateLocalCredentials<T>(
  file: string,
  change: (credentials: LocalCredentials) => { credentials?: LocalCredentials; result: T },
): Promise<{ result: T; created: boolean }> {
  return withLocalCredentialsLock(file, async () => {
    const { credentials, created } = await readOrCreate(file);
    const outcome = change(credentials);
    if (outcome.credentials) await writeLocalCredentials(file, outcome.credentials);
    return { result: outcome.result, created };
  });
}

/**
 * The local credentials file as the authorizer's credential source. It is checked on every call, so
 * tokens added by `npm run tokens` work at once; it is parsed and hashed again only when its identity,
 * size or modification time changed (the tool renames a new file into place). Plaintext tokens are
 * hashed here and go no further.
 */
export function localFileCredentialSource(file: string): CredentialSource {
  let cached: { stamp: string; adminKey: string; tokens: AccessTokenRecord[] } | undefined;
  const current = async () => {
    const { ino, size, mtimeMs } = await stat(file);
    const stamp = `${ino}:${size}:${mtimeMs}`;
    if (cached?.stamp !== stamp) {
      const { adminKey, accessTokens } = await readLocalCredentials(file);
      const tokens = accessTokens.map(({ token, ...record }) => ({ ...record, sha256: sha256Hex(token) }));
      // The secret's schema, so the local run applies the same rules (expiry format, unique ids).
      cached = { stamp, adminKey, tokens: validateAccessTokens({ tokens }, `${WHAT} ${file}`).tokens };
    }
    return cached;
  };
  // Always current (the file is checked on every call), so a fresh read needs nothing more.
  return {
    adminKey: async () => parseAdminKey((await current()).adminKey),
    accessTokens: async () => (await current()).tokens,
  };
}
