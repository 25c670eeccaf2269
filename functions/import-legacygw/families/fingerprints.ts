/*
 * The columns that tell the families' tables apart (docs/channel-import.md, "Fingerprints"), in one place so that
 * every family's `match` excludes the others' by the same lists. Each list was read from the Channel struct of
 * model/channel.go at every version of its gateway (the commits are in test/support/family-schemas.ts).
 */

/**
 * Columns only New API's Channel model has. `auto_ban` and `open_ai_organization` (GORM's name for
 * OpenAIOrganization) are in every version since v0.0.4; the others came later. `openai_organization` is the JSON
 * spelling, accepted in case a table was written with it. `tag`, `test_model` and `header_override` are not here:
 * One Hub or Done Hub have them too.
 */
export const NEWAPI_OWN_COLUMNS = [
  'auto_ban',
  'open_ai_organization',
  'openai_organization',
  'status_code_mapping',
  'other_info',
  'setting',
  'settings',
  'param_override',
  'remark',
  'channel_info',
  'need_reconcile',
] as const;

/**
 * Columns only One Hub's lineage has (never One API nor New API): any one of them makes a table a hub table. One
 * Hub added `proxy` in v0.5.10-2 (December 2023), so every One Hub started or upgraded since has at least that one.
 */
export const HUB_COLUMNS = [
  'proxy',
  'plugin',
  'only_chat',
  'pre_cost',
  'model_headers',
  'custom_parameter',
  'disabled_stream',
  'compatible_response',
  'allow_extra_body',
  'deleted_at',
] as const;

/** Columns Done Hub added to One Hub's table (`header_override` is also New API's, so it counts only beside a hub column). */
export const DONEHUB_COLUMNS = ['cost_ratio', 'pass_through_body', 'header_override'] as const;

/** The columns of `names` the table has, in the list's order. */
export function present(columns: ReadonlySet<string>, names: readonly string[]): string[] {
  return names.filter((name) => columns.has(name));
}

/*
 * Every column any version of a family has had (docs/channel-import.md, "Forks"), beyond One API's (every family's
 * table may be a One API database upgraded in place, and GORM never drops a column). A column outside its family's
 * set is a fork's: the table is refused unless the operator names the family. test/unit/family-forks.test.ts checks
 * each list against every schema version in test/support/family-schemas.ts.
 */

/** New API's columns beyond One API's, from every version since v0.0.4. */
export const NEWAPI_SCHEMA_EXTRA = [...NEWAPI_OWN_COLUMNS, 'test_model', 'tag', 'header_override'] as const;

/** One Hub's columns beyond One API's, from every version since v0.5.8. */
export const ONEHUB_SCHEMA_EXTRA = [...HUB_COLUMNS, 'test_model', 'tag'] as const;

/** Done Hub's columns beyond One API's: One Hub's and its own. */
export const DONEHUB_SCHEMA_EXTRA = [...ONEHUB_SCHEMA_EXTRA, ...DONEHUB_COLUMNS] as const;
