import type { Family, RowType, RowValues } from '#functions/import-legacygw/families/family';

/**
 * A family's key and settings readers over rows built by `row` (the row the family's editor leaves, with the test's
 * fields over it), and its type entries by number: the unit tests of one family call these.
 */
export function familyCalls(family: Family, row: (fields: Record<string, string | null>) => RowValues) {
  const typeOf = (type: number): RowType => {
    const entry = family.types.get(type);
    if (entry === undefined) throw new Error(`${family.name} has no type ${type}`);
    return { type, entry };
  };
  return {
    typeOf,
    keys: (fields: Record<string, string | null>, type = 1) => family.keys(row(fields), typeOf(type)),
    settings: (fields: Record<string, string | null>, type = 1) => family.settings(row(fields), typeOf(type)),
  };
}

/** The columns every One API-family editor fills alike when the operator sets only `key` and models (`gpt-4o`). */
export function editorRow(key: string): RowValues {
  return {
    id: '1',
    type: '1',
    key,
    status: '1',
    name: 'channel',
    base_url: '',
    models: 'gpt-4o',
    group: 'default',
    other: '',
    model_mapping: '',
  };
}
