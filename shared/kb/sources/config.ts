import { type AllowList, parseAllowList } from '../../allow-list.ts';
import { ConfigError } from '../../errors.ts';
import * as z from '../../zod.ts';

/*
 * The environment of the source functions (docs/knowledge-base-sources.md, "Configuration"; docs/configuration.md).
 * Kept beside them so the content functions' shared configuration stays small:
 * - LINK_ALLOWED_HOSTS: hosts, addresses or CIDRs a link may reach although they resolve to a loopback address (as
 *   LEGACYGW_ALLOWED_HOSTS does for DSNs and RELAY_ALLOWED_HOSTS for channels); link-local and metadata addresses are
 *   refused whatever it says.
 * - KB_SOURCE_BUCKET (deployed) or KB_SOURCE_DIR (`npm start`): the source bucket.
 */

export const SOURCES_ENV = {
  linkAllowedHosts: 'LINK_ALLOWED_HOSTS',
  kbSourceBucket: 'KB_SOURCE_BUCKET',
  kbSourceDir: 'KB_SOURCE_DIR',
} as const;

const optionalName = z.optional(z.string().check(z.trim(), z.minLength(1)));

const allowList = z.pipe(
  z.optional(z.string()),
  z.transform((value: string | undefined, payload): AllowList => {
    try {
      return parseAllowList((value ?? '').split(','));
    } catch (error) {
      payload.issues.push({ code: 'custom', message: (error as Error).message, input: value });
      return z.NEVER;
    }
  }),
);

/** The link rules' setting. */
export const linkEnvSchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.object({ [SOURCES_ENV.linkAllowedHosts]: allowList }),
);

export type LinkConfig = z.infer<typeof linkEnvSchema>;

/** Where the source bucket is: exactly one of the two. */
export const sourceStoreEnvSchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.object({ [SOURCES_ENV.kbSourceBucket]: optionalName, [SOURCES_ENV.kbSourceDir]: optionalName }),
);
export type SourceStoreConfig = z.infer<typeof sourceStoreEnvSchema>;

/** The store's location, or a ConfigError naming both variables (a cold start fails). */
export function sourceStoreLocation(config: SourceStoreConfig): { bucket: string } | { dir: string } {
  const bucket = config[SOURCES_ENV.kbSourceBucket];
  if (bucket) return { bucket };
  const dir = config[SOURCES_ENV.kbSourceDir];
  if (dir) return { dir };
  throw new ConfigError(
    `Invalid environment: ${SOURCES_ENV.kbSourceBucket} (deployed) or ${SOURCES_ENV.kbSourceDir} (locally) is required`,
  );
}
