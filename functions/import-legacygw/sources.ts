import { ProxyApiError } from '#shared/errors';
import type { PostgresDsn } from './dsn.ts';
import type { ColumnSpec } from './families/family.ts';
import { checkColumns, type SourceColumn, toLegacyRow } from './legacy-columns.ts';
import type { TrustOptions } from './legacy-connection.ts';
import { type LegacySource, legacySourceOpener, type OpenSource, type SourceLimits } from './legacy-source.ts';
import { LIMITS, settingsColumn } from './limits.ts';
import { type OpenPgSource, pgSourceOpener } from './pg-source.ts';
import type { ResolvedTarget } from './target.ts';

/**
 * Opens the source a DSN names: MySQL or PostgreSQL (docs/channel-import.md). Both trust, for verified TLS, Node's
 * CAs, the Amazon RDS CAs and `options.extraCas`.
 */
export function sourceOpener(options: TrustOptions = {}): OpenSource {
  const mysql = legacySourceOpener(options);
  const postgres = pgSourceOpener(options);
  return (dsn, target, limits) =>
    dsn.engine === 'postgres' ? openPostgres(postgres, dsn, target, limits) : mysql(dsn, target, limits);
}

/** Opens MySQL and PostgreSQL sources trusting Node's and Amazon RDS's CAs. */
export const openSource: OpenSource = sourceOpener();

// Until the import core reads row sources itself, the PostgreSQL source is read through the legacy source's
// shape: the same table check, row cap and row conversion as MySQL's, with the limits checked in the SELECT.
async function openPostgres(
  open: OpenPgSource,
  dsn: PostgresDsn,
  target: ResolvedTarget,
  limits: SourceLimits,
): Promise<LegacySource> {
  const source = await open(dsn, target, limits);
  try {
    const { kind, columns } = checkColumns(await source.columns(), dsn.database);
    const rows = await source.count();
    if (rows > limits.maxRows) {
      throw new ProxyApiError(
        400,
        `The channels table has too many rows (${rows} rows; at most ${limits.maxRows} can be imported, see LEGACYGW_MAX_ROWS)`,
      );
    }
    const select = columns.map(specOf);
    return {
      kind,
      async *rows() {
        for await (const row of source.rows(select, limits.maxRows)) yield toLegacyRow(row.values, columns);
      },
      close: () => source.close(),
    };
  } catch (e) {
    await source.close();
    throw e;
  }
}

const INTEGER_COLUMNS: ReadonlySet<string> = new Set(['id', 'type', 'status']);
const TEXT_LIMITS: Readonly<Record<string, number>> = {
  key: LIMITS.keyColumnBytes,
  base_url: LIMITS.baseUrlBytes,
  models: LIMITS.modelsBytes,
};

function specOf(column: SourceColumn): ColumnSpec {
  if (INTEGER_COLUMNS.has(column)) return { name: column, kind: 'integer', maxBytes: null };
  if (column === 'name') return { name: column, kind: 'text', maxBytes: null, prefixChars: LIMITS.nameChars };
  const bytes = TEXT_LIMITS[column];
  return bytes === undefined ? settingsColumn(column) : { name: column, kind: 'text', maxBytes: bytes };
}
