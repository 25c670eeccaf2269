import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import {
  GetSecretValueCommand,
  PutSecretValueCommand,
  type SecretsManagerClient,
  UpdateSecretVersionStageCommand,
} from '@aws-sdk/client-secrets-manager';
import {
  type AccessTokensSecret,
  parseAccessTokensSecret,
  SECRET_VALUE_MAX_BYTES,
  sha256Hex,
} from '#shared/access-tokens';
import { loadOrCreateLocalCredentials, updateLocalCredentials } from '#shared/local-credentials';

/** A new access token as the tool makes it; `token` is plaintext and shown to the user once. */
export interface NewAccessToken {
  id: string;
  token: string;
  teamId: string;
  tmbId: string;
  label: string;
  expiresAt: string | null;
}

/** What `list` shows of a stored token: everything but the token or its hash. */
export interface TokenSummary {
  id: string;
  teamId: string;
  tmbId: string;
  label: string;
  expiresAt: string | null;
}

/** Where the tool keeps access tokens: the local credentials file or the AWS secret. */
export interface TokenStore {
  /** Human-readable location, for messages. */
  readonly location: string;
  add(token: NewAccessToken): Promise<void>;
  /** Removes the token with `id`; false when there is none. */
  remove(id: string): Promise<boolean>;
  list(): Promise<TokenSummary[]>;
}

type StoredToken = Pick<TokenSummary, 'id' | 'teamId' | 'tmbId'> & { label?: string; expiresAt?: string | null };

const summary = (t: StoredToken): TokenSummary => ({
  id: t.id,
  teamId: t.teamId,
  tmbId: t.tmbId,
  label: t.label ?? '',
  expiresAt: t.expiresAt ?? null,
});

/**
 * The local run's `DATA_DIR/credentials.json` (plaintext tokens, mode 0600), created if missing. Each
 * change is a read and a write under the file's lock, so overlapping runs never lose one another's edit.
 */
export function localTokenStore(
  dataDir: string,
  onCreated: (file: string) => void = () => {},
): TokenStore & { readonly file: string } {
  const file = join(dataDir, 'credentials.json');
  const update = async <T>(change: Parameters<typeof updateLocalCredentials<T>>[1]) => {
    const { result, created } = await updateLocalCredentials(file, change);
    if (created) onCreated(file);
    return result;
  };
  return {
    file,
    location: file,
    async add(token) {
      await update((credentials) => ({
        credentials: { ...credentials, accessTokens: [...credentials.accessTokens, token] },
        result: undefined,
      }));
    },
    async remove(id) {
      return update((credentials) => {
        const remaining = credentials.accessTokens.filter((t) => t.id !== id);
        if (remaining.length === credentials.accessTokens.length) return { result: false };
        return { credentials: { ...credentials, accessTokens: remaining }, result: true };
      });
    },
    async list() {
      const { credentials, created } = await loadOrCreateLocalCredentials(file);
      if (created) onCreated(file);
      return credentials.accessTokens.map(summary);
    },
  };
}

/** How often a change is tried again after another writer moved the secret in between. */
const SECRET_WRITE_ATTEMPTS = 8;

/** Another writer changed the secret between this run's read and its write; the change was not made. */
export class SecretConflictError extends Error {}

/**
 * The access tokens secret in AWS Secrets Manager: read, change, write a new version. Only the
 * SHA-256 of a token is stored. Secrets Manager has no conditional put, but moving a staging label is
 * one: a change is written as a new version labelled AWSPENDING, then AWSCURRENT is moved to it from
 * the version the change was made on (UpdateSecretVersionStage with RemoveFromVersionId), which fails
 * if another run moved AWSCURRENT in between. The change is then made again on the new current value,
 * so two overlapping runs never lose a create or undo a revoke.
 */
export function secretTokenStore(
  client: SecretsManagerClient,
  secretId: string,
  options: { sleep?: (ms: number) => Promise<void> } = {},
): TokenStore {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const read = async () => {
    const { SecretString, VersionId } = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
    if (typeof SecretString !== 'string') throw new Error(`secret ${secretId} has no string value`);
    if (typeof VersionId !== 'string') throw new Error(`secret ${secretId} has no version id`);
    return { secret: parseAccessTokensSecret(SecretString), versionId: VersionId };
  };
  const currentVersion = async () => (await client.send(new GetSecretValueCommand({ SecretId: secretId }))).VersionId;

  /** Writes `secret` as the new AWSCURRENT if AWSCURRENT is still `basedOn`; throws SecretConflictError if not. */
  const write = async (secret: AccessTokensSecret, basedOn: string) => {
    const text = JSON.stringify(secret);
    const bytes = Buffer.byteLength(text, 'utf8');
    // Checked here, before the write, so the operator gets a clear message instead of an SDK error.
    if (bytes > SECRET_VALUE_MAX_BYTES) {
      throw new Error(
        `the access tokens secret would be ${bytes.toLocaleString('en-US')} bytes with ${secret.tokens.length} tokens, over Secrets Manager's limit of ${SECRET_VALUE_MAX_BYTES.toLocaleString('en-US')} bytes: nothing was written. Revoke tokens that are no longer used (npm run tokens -- list / revoke) and try again`,
      );
    }
    const versionId = randomUUID();
    await client.send(
      new PutSecretValueCommand({
        SecretId: secretId,
        SecretString: text,
        ClientRequestToken: versionId,
        VersionStages: ['AWSPENDING'],
      }),
    );
    try {
      await client.send(
        new UpdateSecretVersionStageCommand({
          SecretId: secretId,
          VersionStage: 'AWSCURRENT',
          MoveToVersionId: versionId,
          RemoveFromVersionId: basedOn,
        }),
      );
    } catch (error) {
      // Which error a moved label gives is not documented: the current version tells what happened.
      const now = await currentVersion();
      if (now === versionId) return;
      if (now !== basedOn) throw new SecretConflictError('another run changed the secret meanwhile');
      throw error;
    }
    // Tidy: the new current version keeps only AWSCURRENT (a pending label would confuse a rotation).
    await client
      .send(
        new UpdateSecretVersionStageCommand({
          SecretId: secretId,
          VersionStage: 'AWSPENDING',
          RemoveFromVersionId: versionId,
        }),
      )
      .catch(() => {});
  };

  /** Reads, applies `change` and writes, again from a fresh read whenever another run wrote in between. */
  const update = async <T>(change: (secret: AccessTokensSecret) => { secret?: AccessTokensSecret; result: T }) => {
    for (let attempt = 1; ; attempt += 1) {
      const { secret, versionId } = await read();
      const outcome = change(secret);
      if (outcome.secret === undefined) return outcome.result;
      try {
        await write(outcome.secret, versionId);
        return outcome.result;
      } catch (error) {
        if (!(error instanceof SecretConflictError) || attempt >= SECRET_WRITE_ATTEMPTS) throw error;
        // Jittered back-off, so two runs that keep meeting each other part.
        await sleep(Math.floor(Math.random() * 100 * attempt));
      }
    }
  };

  return {
    location: `secret ${secretId}`,
    async add({ token, ...record }) {
      await update((secret) => ({
        secret: { ...secret, tokens: [...secret.tokens, { ...record, sha256: sha256Hex(token) }] },
        result: undefined,
      }));
    },
    async remove(id) {
      return update((secret) => {
        const remaining = secret.tokens.filter((t) => t.id !== id);
        if (remaining.length === secret.tokens.length) return { result: false };
        return { secret: { ...secret, tokens: remaining }, result: true };
      });
    },
    async list() {
      return (await read()).secret.tokens.map(summary);
    },
  };
}
