import { randomBytes, randomUUID } from 'node:crypto';
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import * as z from 'zod';

/** Local-run credentials file (SPEC 6): the admin key and plaintext access tokens. */
export const localCredentialsSchema = z.object({
  adminKey: z.string().min(32),
  accessTokens: z.array(
    z.object({
      id: z.string().min(1),
      token: z.string().min(1),
      teamId: z.string().min(1),
      tmbId: z.string().min(1),
      label: z.string().optional(),
      expiresAt: z.string().nullable().optional(),
    }),
  ),
});
export type LocalCredentials = z.infer<typeof localCredentialsSchema>;
export type LocalAccessToken = LocalCredentials['accessTokens'][number];

/** A new random access token: prefix `kb-` and 32 bytes of entropy (SPEC 4). */
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

/** Reads and validates the credentials file; throws if it is missing or malformed. */
export async function readLocalCredentials(file: string): Promise<LocalCredentials> {
  const text = await readFile(file, 'utf8');
  return localCredentialsSchema.parse(JSON.parse(text));
}

/** Writes the credentials file atomically with mode 0600. */
export async function writeLocalCredentials(file: string, credentials: LocalCredentials): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  await writeFile(tmp, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  await chmod(tmp, 0o600);
  await rename(tmp, file);
}

/** Returns the credentials in `file`, creating fresh random ones on first use. */
export async function loadOrCreateLocalCredentials(
  file: string,
): Promise<{ credentials: LocalCredentials; created: boolean }> {
  try {
    return { credentials: await readLocalCredentials(file), created: false };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const credentials: LocalCredentials = {
    adminKey: newAdminKeyValue(),
    accessTokens: [
      { id: randomUUID(), token: newAccessTokenValue(), teamId: newHexId(), tmbId: newHexId(), label: 'local default' },
    ],
  };
  await writeLocalCredentials(file, credentials);
  return { credentials, created: true };
}
