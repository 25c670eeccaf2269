import type { APIGatewayProxyEvent } from 'aws-lambda';
import { PROXY_REQUEST_ERRORS } from '#shared/envelopes/proxy';
import { ProxyApiError } from '#shared/errors';
import { BODY_PROBLEMS, parseJsonObjectBody, validRequest } from '#shared/http';
import { ROWS_BODY_BYTES, ROWS_PER_CALL } from '#shared/import-rows';
import type * as z from '#shared/zod';
import { startDeadline } from './deadline.ts';
import type { FamilyKind, RowValues } from './families/family.ts';
import { type ImportCoreDeps, importFromSource } from './import-legacygw.ts';
import type { ImportReport } from './report.ts';
import { ROWS_ORIGIN, rowsSource, type SentTable } from './rows-source.ts';
import { type ImportRowsBody, importRowsBodySchema, type SentTokenTables } from './schema.ts';
import { importTokens, type TokenImportDeps } from './tokens/import-tokens.ts';

export interface ImportRowsInput {
  /** One call's rows of a `channels` table (a whole table when it fits one call). */
  table: SentTable;
  /** Map, classify and report, but write nothing. */
  dryRun: boolean;
  /** The family the operator chose (families/detect.ts). */
  family?: FamilyKind;
  /** The SQLite file's name the client read the rows from: the source's `database`. */
  file?: string;
  /** The legacy gateway's `tokens` (with `users`, `options`) to carry over as relay keys (docs/relay.md, "Keys"). */
  tokens?: SentTokenTables;
}

/** The token import's collaborators; absent where the function has no relay keys table. */
export interface RowsImportDeps extends ImportCoreDeps {
  tokens?: Omit<TokenImportDeps, 'hmacKey' | 'now'>;
}

/** A sent table's rows as a source's row values: text or null by lower-case column name (numbers as their text). */
function rowValues(table: { columns: string[]; rows: unknown[][] } | undefined): RowValues[] {
  if (!table) return [];
  const names = table.columns.map((c) => c.toLowerCase());
  return table.rows.map((row) =>
    Object.fromEntries(
      names.map((name, i) => {
        const cell = row[i];
        return [name, typeof cell === 'string' ? cell : typeof cell === 'number' ? String(cell) : null];
      }),
    ),
  );
}

/**
 * Imports the channels of a table a client sent (docs/channel-import.md, "Rows sent by a client"): the same import
 * core as a database's table, over one more source. A call stopped at the deadline reports exactly what it wrote,
 * and sending the same call again completes it.
 */
export async function importRows(input: ImportRowsInput, deps: RowsImportDeps): Promise<ImportReport> {
  const deadline = startDeadline(deps);
  const source = rowsSource(input.table, { ...ROWS_ORIGIN, database: input.file ?? '' });
  try {
    const report = await importFromSource(source, input.dryRun, deadline, deps, input.family);
    if (input.tokens === undefined) return report;
    if (deps.tokens === undefined) throw new ProxyApiError(400, 'This deployment cannot import tokens');
    // The tokens are read as the family the channels table was detected as.
    const tokens = await importTokens(
      {
        family: report.source.kind,
        tokens: rowValues(input.tokens.tokens),
        users: rowValues(input.tokens.users),
        options: rowValues(input.tokens.options),
        dryRun: input.dryRun,
      },
      { ...deps.tokens, hmacKey: deps.channelIdKey, now: deps.now },
    );
    return { ...report, tokens };
  } finally {
    deadline.clear();
    await source.close();
  }
}

const MIB = 1024 * 1024;
const SPLIT = `send the table in several calls of at most ${ROWS_PER_CALL.toLocaleString('en')} rows and ${ROWS_BODY_BYTES / MIB} MiB`;

/**
 * The body of POST /api/channels/import/rows, or the API's error: 413 for a body over ROWS_BODY_BYTES or rows over
 * ROWS_PER_CALL (checked before the rows are validated one by one), 400 naming what else is wrong.
 */
export function parseRowsBody(event: Pick<APIGatewayProxyEvent, 'body' | 'isBase64Encoded'>): ImportRowsBody {
  const body = parseJsonObjectBody(event, ROWS_BODY_BYTES);
  if (!body.ok) {
    if (body.reason === 'too-large') {
      throw new ProxyApiError(
        413,
        `The body must be at most ${ROWS_BODY_BYTES / MIB} MiB (${ROWS_BODY_BYTES} bytes): ${SPLIT}`,
      );
    }
    throw new ProxyApiError(400, BODY_PROBLEMS[body.reason]);
  }
  const { rows } = body.value;
  if (Array.isArray(rows) && rows.length > ROWS_PER_CALL) {
    throw new ProxyApiError(413, `The body holds ${rows.length} rows; ${SPLIT}`);
  }
  return validRequest(body.value, importRowsBodySchema, ROWS_ERRORS);
}

// At most this many problems are named: a wrong type in every cell is one message per kind, not 100,000.
const MAX_PROBLEMS = 5;

const ROWS_ERRORS = {
  malformed: PROXY_REQUEST_ERRORS.malformed,
  invalid: (error: z.core.$ZodError) => {
    const problems = new Set<string>();
    for (const issue of error.issues) {
      const [field, row, column] = issue.path;
      const where =
        field === 'rows' && typeof row === 'number'
          ? typeof column === 'number'
            ? `rows[${row}][${column}]: `
            : `rows[${row}]: `
          : field === 'columns' && typeof row === 'number'
            ? `columns[${row}]: `
            : '';
      problems.add(`${where}${cellMessage(issue)}`);
      if (problems.size >= MAX_PROBLEMS) break;
    }
    return new ProxyApiError(400, [...problems].join('; '));
  },
};

// A cell that is neither text, a number nor null fails every member of the union: one message says what it may be.
function cellMessage(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_union') return 'a value must be text, a number or null';
  return issue.message;
}
