import type { TrustOptions } from './legacy-connection.ts';
import { legacySourceOpener, type OpenSource } from './legacy-source.ts';
import { pgSourceOpener } from './pg-source.ts';

/**
 * Opens the source a DSN names: MySQL or PostgreSQL (docs/channel-import.md). Both trust, for verified TLS, Node's
 * CAs, the Amazon RDS CAs and `options.extraCas`; both hand the import core the same RowSource.
 */
export function sourceOpener(options: TrustOptions = {}): OpenSource {
  const mysql = legacySourceOpener(options);
  const postgres = pgSourceOpener(options);
  return (dsn, target, limits) =>
    dsn.engine === 'postgres' ? postgres(dsn, target, limits) : mysql(dsn, target, limits);
}

/** Opens MySQL and PostgreSQL sources trusting Node's and Amazon RDS's CAs. */
export const openSource: OpenSource = sourceOpener();
