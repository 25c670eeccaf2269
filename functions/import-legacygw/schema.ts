import { FAMILY_CHOICES, ROWS_PER_CALL } from '#shared/import-rows';
import * as z from '#shared/zod';

/** The request body of POST /api/channels/import/legacygw (docs/channel-import.md): unknown fields are dropped; a wrong type is a 400, never a 500. */
export const importBodySchema = z.object({
  dsn: z.string({ error: 'dsn is required and must be a string' }).register(z.globalRegistry, {
    description: 'The legacy gateway database: `user:password@tcp(host:port)/database` or a `mysql://` URL',
  }),
  dryRun: z
    .optional(z.boolean({ error: 'dryRun must be true or false' }))
    .register(z.globalRegistry, { description: 'Map and report, write nothing' }),
  family: z
    .optional(
      z.enum(FAMILY_CHOICES, {
        error: 'family must be one of "oneapi", "newapi", "onehub", "donehub"',
      }),
    )
    .register(z.globalRegistry, {
      description:
        "Read the table as this gateway's, whatever its columns say: for a fork refused for columns no version of its gateway has. Each row's warnings then name those columns where they hold a value.",
    }),
  tokens: z.optional(z.boolean({ error: 'tokens must be true or false' })).register(z.globalRegistry, {
    description:
      "Also carry the gateway's keys over: its `tokens` table (with `users` for a token's group and `options` for price ratios and routing options) becomes relay keys accepting the same secrets; the report gains `tokens`",
  }),
});

/** Longest column name a rows call may send (SQLite's names are free; a gateway's are short). */
export const MAX_COLUMN_NAME_CHARS = 64;
/** Longest SQLite file name a rows call may record as its source. */
export const MAX_FILE_NAME_CHARS = 255;
/** Most columns a rows call may send; the widest gateway table has about 40. */
export const MAX_ROW_COLUMNS = 200;

const rowCell = z.union([
  z.string(),
  z
    .number()
    .check(
      z.refine(
        (n) => !Number.isInteger(n) || Number.isSafeInteger(n),
        'an integer beyond 2^53 must be sent as text (as a number it has already lost digits)',
      ),
    ),
  z.null(),
  z
    .strictObject({ oversizeBytes: z.int().check(z.minimum(0)) }, { error: 'a value must be text, a number or null' })
    .register(z.globalRegistry, {
      description:
        "A value the client did not read because it is over its reader's cap; the row is skipped as over the column's limit",
    }),
]);

/** A table a client sends beside the channels rows (`tokens`, `users`, `options`), as columns and rows. */
const sentTokenTable = (name: string) =>
  z
    .object({
      columns: z
        .array(z.string().check(z.minLength(1), z.maxLength(MAX_COLUMN_NAME_CHARS)), {
          error: `tokens.${name}.columns must be an array of column names`,
        })
        .check(z.maxLength(MAX_ROW_COLUMNS)),
      rows: z
        .array(z.array(rowCell), { error: `tokens.${name}.rows must be an array of rows` })
        .check(z.maxLength(ROWS_PER_CALL, `tokens.${name}.rows may hold at most ${ROWS_PER_CALL} rows a call`)),
    })
    .check(
      z.refine(
        (t) => t.rows.every((r) => r.length === t.columns.length),
        `every row of tokens.${name} must hold exactly one value per column`,
      ),
    );

/**
 * The legacy gateway's `tokens` table (with its `users` and `options`) sent beside the channels rows, when the caller
 * asks for its keys to be carried over (docs/relay.md, "Keys").
 */
export const sentTokenTablesSchema = z
  .object({
    tokens: sentTokenTable('tokens'),
    users: z.optional(sentTokenTable('users')),
    options: z.optional(sentTokenTable('options')),
  })
  .register(z.globalRegistry, {
    description:
      "The legacy gateway's `tokens` table, and its `users` (for a token's group) and `options` (price ratios, RetryTimes), each as columns and rows: each token becomes a relay key accepting the same secret; the report gains `tokens`",
  });
export type SentTokenTables = z.infer<typeof sentTokenTablesSchema>;

/**
 * The request body of POST /api/channels/import/rows (docs/channel-import.md, "Rows sent by a client"): a `channels`
 * table's column names and rows, at most ROWS_PER_CALL rows; unknown fields are dropped.
 */
export const importRowsBodySchema = z
  .object({
    columns: z
      .array(
        z
          .string({ error: 'columns must be an array of column names' })
          .check(
            z.minLength(1, 'a column name must not be empty'),
            z.maxLength(MAX_COLUMN_NAME_CHARS, `a column name must be at most ${MAX_COLUMN_NAME_CHARS} characters`),
          ),
        { error: 'columns is required and must be an array of column names' },
      )
      .check(
        z.minLength(1, 'columns must name at least one column'),
        z.maxLength(MAX_ROW_COLUMNS, `columns may name at most ${MAX_ROW_COLUMNS} columns`),
      )
      .register(z.globalRegistry, {
        description: "The `channels` table's column names, as the gateway's database has them (any case; each once)",
      }),
    rows: z
      .array(z.array(rowCell, { error: 'each row must be an array of values' }), {
        error: 'rows is required and must be an array of rows',
      })
      .check(z.maxLength(ROWS_PER_CALL, `rows may hold at most ${ROWS_PER_CALL} rows a call`))
      .register(z.globalRegistry, {
        description:
          'The rows, each an array of values in the order of `columns`: text, a number, null, or `{"oversizeBytes": n}` for a value left unread as over its limit. An integer beyond 2^53 is sent as text.',
      }),
    dryRun: z
      .optional(z.boolean({ error: 'dryRun must be true or false' }))
      .register(z.globalRegistry, { description: 'Map and report, write nothing' }),
    family: z
      .optional(
        z.enum(FAMILY_CHOICES, {
          error: 'family must be one of "oneapi", "newapi", "onehub", "donehub"',
        }),
      )
      .register(z.globalRegistry, {
        description:
          "Read the table as this gateway's, whatever its columns say: for a fork refused for columns no version of its gateway has. Each row's warnings then name those columns where they hold a value.",
      }),
    file: z
      .optional(
        z
          .string({ error: 'file must be a file name' })
          .check(
            z.maxLength(MAX_FILE_NAME_CHARS, `file must be at most ${MAX_FILE_NAME_CHARS} characters`),
            z.regex(/^[^/\\\p{Cc}]*$/u, 'file must be a file name, without a directory or control characters'),
          ),
      )
      .register(z.globalRegistry, {
        description:
          "The SQLite file's name (without its directory), recorded as the import's source: the report's `source.database` and each channel's `source.database`",
      }),
    tokens: z.optional(sentTokenTablesSchema),
  })
  .check(
    z.refine(
      (body) => new Set(body.columns.map((c) => c.toLowerCase())).size === body.columns.length,
      'columns must name each column once (names are compared case-insensitively)',
    ),
    z.superRefine((body, ctx) => {
      const row = body.rows.findIndex((r) => r.length !== body.columns.length);
      if (row < 0) return;
      ctx.addIssue({
        code: 'custom',
        path: ['rows', row],
        input: body.rows[row],
        message: `every row must hold exactly one value per column (${body.columns.length}); this one holds ${body.rows[row]?.length}`,
      });
    }),
  );
export type ImportRowsBody = z.infer<typeof importRowsBodySchema>;
