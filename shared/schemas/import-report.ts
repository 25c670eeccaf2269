import * as z from 'zod';

/**
 * The `data` of a successful import response (docs/channel-import.md), written once: the import builds a value of
 * this type and the OpenAPI document describes it from this schema.
 */
const count = z.int().min(0);

/**
 * Which gateway's `channels` table an import read (its family); each has its own type table. Reports before
 * families said `legacygw` for One API's table: a client reading a stored report treats it as `oneapi`.
 */
export const sourceKindSchema = z.enum(['oneapi', 'newapi', 'onehub', 'donehub']);

/** A legacy row's id: an integer in 1..2^53−1, or the id's text when it is anything else. */
const legacyIdSchema = z.union([z.int().min(1), z.string()]);
export type SourceKind = z.infer<typeof sourceKindSchema>;

/** One noteworthy row: every skipped row and every imported row with warnings. Never carries a value of the row. */
export const reportItemSchema = z.discriminatedUnion('outcome', [
  z.strictObject({
    legacyId: legacyIdSchema,
    outcome: z.literal('skipped'),
    reason: z.string(),
    warnings: z.array(z.string()).optional(),
  }),
  z.strictObject({
    legacyId: legacyIdSchema,
    outcome: z.literal('imported'),
    channels: count,
    warnings: z.array(z.string()),
  }),
]);
export type ReportItem = z.infer<typeof reportItemSchema>;

/** One (group, model) route that the import loses or serves with fewer legacy rows than before. */
export const routeItemSchema = z.strictObject({
  group: z.string(),
  model: z.string(),
  /** Enabled legacy rows that serve the route. */
  legacy: count,
  /** Of those, rows the import turns into at least one enabled channel. */
  imported: count,
});
export type RouteItem = z.infer<typeof routeItemSchema>;

/**
 * The (group, model) pairs the enabled legacy rows route, and what the import keeps of them: `lost` when no row that
 * serves one becomes an enabled channel, `changed` when some do, `kept` when all do. `items`: every lost route, then
 * every changed one, each in model then group order. `complete` is false only when the table names more distinct
 * routes than are counted (100,000): the figures then cover the first ones found.
 */
export const routesReportSchema = z.strictObject({
  total: count,
  kept: count,
  changed: count,
  lost: count,
  items: z.array(routeItemSchema).max(1_000),
  itemsTruncated: z.boolean(),
  complete: z.boolean(),
  /**
   * Present only when the operator chose the family of a fork's table: the fork's columns that held a value in some
   * row. The import did not read them, so routes they decide (a model prefix, say) are not in the counts.
   */
  unreadColumns: z.array(z.string()).optional(),
});
export type RoutesReport = z.infer<typeof routesReportSchema>;

/** A stored channel no row of this run produces any more (docs/channel-import.md, "Stale channels"). */
export const staleItemSchema = z.strictObject({
  id: z.string(),
  name: z.string(),
  provider: z.string(),
  status: z.enum(['enabled', 'disabled', 'auto-disabled']),
  /** The legacy row it was imported from, when it carries one. */
  legacyId: legacyIdSchema.optional(),
});
export type StaleItem = z.infer<typeof staleItemSchema>;

/**
 * Channels already stored that no row of this run produces any more: their legacy row was deleted, or it is now
 * skipped. Never deleted nor changed by the import; an operator may disable them. At most 1,000 listed, the
 * enabled ones first. Absent when there is none.
 */
export const staleReportSchema = z.strictObject({
  count,
  items: z.array(staleItemSchema).max(1_000),
  itemsTruncated: z.boolean(),
});
export type StaleReport = z.infer<typeof staleReportSchema>;

/** What the token import did (docs/relay.md, "Keys"): counts, the skipped tokens and why, the options read. */
export const tokensReportSchema = z.strictObject({
  read: count,
  created: count,
  updated: count,
  unchanged: count,
  edited: count,
  skipped: count,
  items: z.array(z.strictObject({ legacyId: z.string(), reason: z.string() })).max(1_000),
  options: z.strictObject({ imported: z.array(z.string()), ignored: z.array(z.string()) }),
});

/** Enabled channels of one provider the relay cannot serve yet (docs/relay.md, "Providers"). */
export const notServableProviderSchema = z.strictObject({
  provider: z.string(),
  channels: count,
  reason: z.string(),
});
export type NotServableProvider = z.infer<typeof notServableProviderSchema>;

export const importReportSchema = z.strictObject({
  dryRun: z.boolean(),
  /** `kind`: whose `channels` table was detected, the legacy gateway's or New API's. */
  source: z.strictObject({
    host: z.string(),
    port: z.int(),
    database: z.string(),
    rows: count,
    kind: sourceKindSchema,
  }),
  rows: z.strictObject({ imported: count, skipped: count }),
  /** `edited`: existing channels changed through the review API since; the import left them untouched. */
  channels: z.strictObject({ created: count, updated: count, unchanged: count, edited: count }),
  items: z.array(reportItemSchema).max(1_000),
  itemsTruncated: z.boolean(),
  routes: routesReportSchema,
  stale: staleReportSchema.optional(),
  /**
   * Said once for the whole table when the counts alone could mislead: an empty `channels` table (every count 0),
   * or a table whose columns also fit an older version of another gateway that reads its rows' types differently.
   */
  notes: z.array(z.string()).max(10).optional(),
  /** Only when the request asked for the legacy gateway's tokens. */
  tokens: tokensReportSchema.optional(),
  /**
   * Enabled channels the import carries whose provider the relay cannot serve yet, per provider with the reason: their
   * routes are kept in the table but no `/v1` request reaches them (docs/relay.md, "Providers"). Absent when none.
   */
  notServable: z.array(notServableProviderSchema).max(50).optional(),
});
export type ImportReport = z.infer<typeof importReportSchema>;
