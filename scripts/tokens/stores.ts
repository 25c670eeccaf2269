import { join } from 'node:path';
import {
  GetSecretValueCommand,
  PutSecretValueCommand,
  type SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { parseAccessTokensSecret, SECRET_VALUE_MAX_BYTES, sha256Hex } from '#shared/access-tokens';
import { loadOrCreateLocalCredentials, writeLocalCredentials } from '#shared/local-credentials';

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

/** The local run's `DATA_DIR/credentials.json` (plaintext tokens, mode 0600), created if missing. */
export function localTokenStore(
  dataDir: string,
  onCreated: (file: string) => void = () => {},
): TokenStore & { readonly file: string } {
  const file = join(dataDir, 'credentials.json');
  const load = async () => {
    const { credentials, created } = await loadOrCreateLocalCredentials(file);
    if (created) onCreated(file);
    return credentials;
  };
  return {
    file,
    location: file,
    async add(token) {
      const credentials = await load();
      credentials.accessTokens.push(token);
      await writeLocalCredentials(file, credentials);
    },
    async remove(id) {
      const credentials = await load();
      const remaining = credentials.accessTokens.filter((t) => t.id !== id);
      if (remaining.length === credentials.accessTokens.length) return false;
      await writeLocalCredentials(file, { ...credentials, accessTokens: remaining });
      return true;
    },
    async list() {
      return (await load()).accessTokens.map(summary);
    },
  };
}

/**
 * The access tokens secret in AWS Secrets Manager: read, change, write a new version. Only the
 * SHA-256 of a token is stored. Secrets Manager has no conditional write, so two concurrent runs
 * can lose one change; run the tool from one place at a time.
 */
export function secretTokenStore(client: SecretsManagerClient, secretId: string): TokenStore {
  const read = async () => {
    const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
    if (typeof SecretString !== 'string') throw new Error(`secret ${secretId} has no string value`);
    return parseAccessTokensSecret(SecretString);
  };
  const write = async (secret: ReturnType<typeof parseAccessTokensSecret>) => {
    const text = JSON.stringify(secret);
    const bytes = Buffer.byteLength(text, 'utf8');
    // Checked here, before the write, so the operator gets a clear message instead of an SDK error.
    if (bytes > SECRET_VALUE_MAX_BYTES) {
      throw new Error(
        `the access tokens secret would be ${bytes.toLocaleString('en-US')} bytes with ${secret.tokens.length} tokens, over Secrets Manager's limit of ${SECRET_VALUE_MAX_BYTES.toLocaleString('en-US')} bytes: nothing was written. Revoke tokens that are no longer used (npm run tokens -- list / revoke) and try again`,
      );
    }
    await client.send(new PutSecretValueCommand({ SecretId: secretId, SecretString: text }));
  };
  return {
    location: `secret ${secretId}`,
    async add({ token, ...record }) {
      const secret = await read();
      secret.tokens.push({ ...record, sha256: sha256Hex(token) });
      await write(secret);
    },
    async remove(id) {
      const secret = await read();
      const remaining = secret.tokens.filter((t) => t.id !== id);
      if (remaining.length === secret.tokens.length) return false;
      await write({ ...secret, tokens: remaining });
      return true;
    },
    async list() {
      return (await read()).tokens.map(summary);
    },
  };
}
