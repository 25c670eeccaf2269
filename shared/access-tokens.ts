import { createHash } from 'node:crypto';
import * as z from './zod.ts';

/**
 * The two credential secrets (docs/authorization.md), shared by the authorizer and the tokens tool.
 * Error messages built here name fields and rules only, never a value: the input is secret.
 */

/** Shortest admin key the authorizer accepts. */
const ADMIN_KEY_MIN_LENGTH = 32;

/**
 * The shortest token that can be a credential the tools make (an admin key; access tokens are 46
 * characters): anything shorter never earns the authorizer a fresh read of the secrets.
 */
export const SHORTEST_CREDENTIAL_LENGTH = ADMIN_KEY_MIN_LENGTH;

/**
 * At most one cache-bypassing read of the secrets per this interval and authorizer instance. The tokens
 * tool waits longer than this after storing a new token before it shows it (docs/authorization.md).
 */
export const FRESH_READ_INTERVAL_MS = 1_000;

// RFC 6750 allows far fewer characters in a bearer token; visible ASCII keeps generated keys with
// punctuation usable, while whitespace and control characters could never arrive in a header intact.
const VISIBLE_ASCII = /^[\x21-\x7e]+$/;

/**
 * The admin key secret's value: a plain string of at least 32 visible ASCII characters. Surrounding
 * whitespace is dropped: a key stored from a file (`--secret-string file://key`) often ends in a newline.
 */
export const adminKeySchema = /* @__PURE__ */ z.moduleSchema(() =>
  z
    .string()
    .check(
      z.trim(),
      z.minLength(ADMIN_KEY_MIN_LENGTH, `must be at least ${ADMIN_KEY_MIN_LENGTH} characters`),
      z.regex(VISIBLE_ASCII, 'must be visible ASCII characters without spaces'),
    ),
);

/** `expiresAt`: an ISO 8601 date-time with `Z` or an offset, or a date (midnight UTC); null = never. */
export const expiresAtSchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.union([z.iso.datetime({ offset: true }), z.iso.date()], {
    error: 'must be an ISO 8601 date-time with a time zone (e.g. 2030-01-31T00:00:00Z) or a date',
  }),
);

/** A token id, team id or member id: 1..128 characters after trimming. */
export const identifierSchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.string().check(z.trim(), z.minLength(1, 'is required'), z.maxLength(128, 'must be at most 128 characters')),
);

/** One entry of the access tokens secret; unknown fields are kept so the tool never drops them on rewrite. */
export const accessTokenRecordSchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.looseObject({
    id: identifierSchema,
    sha256: z.pipe(
      z.string().check(z.regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex characters')),
      z.transform((s) => s.toLowerCase()),
    ),
    teamId: identifierSchema,
    tmbId: identifierSchema,
    label: z.optional(z.string()),
    expiresAt: z.pipe(
      z.nullish(expiresAtSchema),
      z.transform((v) => v ?? null),
    ),
  }),
);
export type AccessTokenRecord = z.infer<typeof accessTokenRecordSchema>;

/** The access tokens secret: `{"tokens":[...]}`, hashes only, ids unique (revocation is by id). */
export const accessTokensSecretSchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.looseObject({ tokens: z.array(accessTokenRecordSchema) }).check(
    z.superRefine((secret, ctx) => {
      const seen = new Set<string>();
      secret.tokens.forEach((token, index) => {
        if (seen.has(token.id))
          ctx.addIssue({ code: 'custom', path: ['tokens', index, 'id'], message: 'is a duplicate' });
        seen.add(token.id);
      });
    }),
  ),
);
export type AccessTokensSecret = z.infer<typeof accessTokensSecretSchema>;

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

/** A credential secret or file could not be read as its schema says; the message holds no secret. */
export class CredentialFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CredentialFormatError';
  }
}

/** A CredentialFormatError listing the failed fields and rules of `what` (never the values). */
export function credentialFormatError(what: string, error: z.core.$ZodError): CredentialFormatError {
  const issues = error.issues.map((i) => `${i.path.length > 0 ? i.path.join('.') : '(value)'} ${i.message}`);
  return new CredentialFormatError(`${what} is malformed: ${issues.join('; ')}`);
}

/** Parses the access tokens secret's JSON text; throws CredentialFormatError without echoing it. */
export function parseAccessTokensSecret(text: string): AccessTokensSecret {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // JSON.parse's own message quotes part of the input, which here is secret.
    throw new CredentialFormatError('access tokens secret is not valid JSON');
  }
  return validateAccessTokens(json, 'access tokens secret');
}

/** Validates an already-parsed `{"tokens":[...]}` value; `what` names its origin in the error. */
export function validateAccessTokens(value: unknown, what: string): AccessTokensSecret {
  const parsed = z.safeParse(accessTokensSecretSchema, value);
  if (!parsed.success) throw credentialFormatError(what, parsed.error);
  return parsed.data;
}

/** Validates the admin key secret's value; throws CredentialFormatError without echoing it. */
export function parseAdminKey(value: unknown): string {
  const parsed = z.safeParse(adminKeySchema, value);
  if (!parsed.success) throw credentialFormatError('admin key secret', parsed.error);
  return parsed.data;
}

/** Secrets Manager's ceiling for a secret value: 64 KiB. */
export const SECRET_VALUE_MAX_BYTES = 65_536;

/** Lowercase hex SHA-256 of a token, the only form a token is stored in outside the local file. */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** True when the record has an expiry at or before `now` (or one that does not parse: fail closed). */
export function isExpired(record: Pick<AccessTokenRecord, 'expiresAt'>, now: Date): boolean {
  return record.expiresAt !== null && !(Date.parse(record.expiresAt) > now.getTime());
}
