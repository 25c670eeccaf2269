import type { ChannelSettings } from '#shared/schemas/channel-settings';
import type { ProviderSlug } from '../providers.ts';

/*
 * A family is one gateway's way of writing its `channels` table (docs/channel-import.md, "Families"): how its table
 * is recognised, its type numbers, how its `key` column holds keys, and where its settings live. A family is data
 * plus a few small functions; the import core (mapping, identity, report, writes) knows no family by name.
 */

/** The gateways whose tables the import reads. `legacygw` is accepted elsewhere as a synonym of `oneapi`. */
export type FamilyKind = 'oneapi' | 'newapi' | 'onehub' | 'donehub';

/** One source row as a source hands it over: every selected column's value as text (integers as decimal text), or null. */
export type RowValues = Readonly<Record<string, string | null>>;

/** A row from a source, with the columns whose value was over its limit and was therefore never fetched. */
export interface SourceRow {
  readonly values: RowValues;
  /** Names of columns over their ColumnSpec.maxBytes; their value in `values` is null. */
  readonly oversize: readonly string[];
}

/** How the source selects one column. */
export interface ColumnSpec {
  /** Lower-case column name. */
  readonly name: string;
  /**
   * `integer`: read as its decimal text (never through a JavaScript number, so an id above 2^53 survives);
   * `text`: read as text; `json`: a JSON (or JSON-as-text) column, read as its JSON text.
   */
  readonly kind: 'integer' | 'text' | 'json';
  /**
   * Largest value fetched, in bytes (UTF-8 octets); a longer value is not transferred: the row arrives with the
   * column null and named in `oversize`. Null: no limit (integer columns).
   */
  readonly maxBytes: number | null;
  /**
   * Text columns only: fetch at most this many characters and report nothing as oversize (the core truncates
   * names anyway, so a long name is cut in SQL instead of refused). Sources fetch `prefixChars + 1` so the core
   * can tell that it was cut.
   */
  readonly prefixChars?: number;
}

/** One entry of a family's type table. */
export interface TypeEntry {
  /** The product's provider slug (functions/import-legacygw/providers.ts). */
  readonly provider: ProviderSlug;
  /** The family's own default base URL for the type, or null when it has none that serves the provider. */
  readonly defaultBaseUrl: string | null;
}

/** The type a row was read as, for the family's per-row functions. */
export interface RowType {
  readonly type: number;
  readonly entry: TypeEntry;
}

/**
 * The keys of one row in the product's format for its provider, or why the row cannot be imported (a skip reason).
 * `disabled`: positions in `keys` of keys the family itself no longer uses although the row is enabled (New API's
 * per-key status in a multi-key row); their channels are imported disabled, so no route is added.
 */
export type KeysResult =
  | { readonly keys: readonly string[]; readonly disabled?: readonly number[] }
  | { readonly skip: string };

/** A row's settings in the product's shape and the warnings for what is not carried (names of fields, never values). */
export interface RowSettings {
  readonly settings: ChannelSettings;
  readonly warnings: readonly string[];
}

export interface Family {
  readonly kind: FamilyKind;
  /** Human name, e.g. "One Hub". */
  readonly name: string;
  /** Where the type table, defaults and column names were read: repository (owner/name) and commit. */
  readonly upstream: { readonly repository: string; readonly commit: string };
  /**
   * Decides from the table's lower-case column names whether the table is this family's. Returns the columns that
   * decided it (the evidence a refusal names) when it matches, undefined when it does not. Exactly one family must
   * match a table; the families' rules are written so that they exclude each other.
   */
  match(columns: ReadonlySet<string>): readonly string[] | undefined;
  /**
   * Every column any version of this gateway has had (docs/channel-import.md, "Forks"). A table's other columns are a
   * fork's: detection refuses the table, and a family the operator chose names them in the warnings of rows holding a
   * value in one.
   */
  readonly schemaColumns: ReadonlySet<string>;
  /**
   * An older version of another family whose table has exactly this family's columns (docs/channel-import.md,
   * "Ambiguity"): when `applies` to the table's columns, the report says so once if some row's type reads
   * differently in that family.
   */
  readonly lookalike?: { readonly kind: FamilyKind; applies(columns: ReadonlySet<string>): boolean };
  /** Type number -> provider and default base URL. A number not listed is skipped, never guessed. */
  readonly types: ReadonlyMap<number, TypeEntry>;
  /**
   * Columns this family reads besides the core's (id, type, key, status, base_url, models, name, group, deleted_at),
   * with their limits. The source selects only those the table has; absent ones are absent from RowValues.
   */
  readonly columns: readonly ColumnSpec[];
  /** The row's keys (already within the core's per-key limits or not: the core checks them). */
  keys(row: RowValues, type: RowType): KeysResult;
  /** The row's settings and the warnings for values that differ from the family's defaults and are not carried. */
  settings(row: RowValues, type: RowType): RowSettings;
}
