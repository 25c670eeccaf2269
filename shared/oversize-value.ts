/*
 * The marker a SQLite reader (console page, `npm run import:sqlite`) sends in place of a value it did not read
 * because the value is over the reader's cap for its column (docs/channel-import.md, "SQLite files"). The cap is the
 * import's own limit for the column's kind of value or larger, so the import reports the value as over its limit
 * exactly as when a database source leaves it unfetched. Only `bytes` (the value's stored size) crosses the wire.
 */

/** A value left unread by the client because it is over the reader's cap; `bytes` is its stored size in bytes. */
export interface OversizeValue {
  readonly oversizeBytes: number;
}

/** Whether a cell sent by a client is the oversize marker. */
export function isOversizeValue(value: unknown): value is OversizeValue {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.keys(value).length === 1 &&
    Number.isSafeInteger((value as { oversizeBytes?: unknown }).oversizeBytes)
  );
}
