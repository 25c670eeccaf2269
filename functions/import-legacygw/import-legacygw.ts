import type { Logger } from '@aws-lambda-powertools/logger';
import type { AllowList } from '#shared/allow-list';
import { DeadlineExceededError, ProxyApiError } from '#shared/errors';
import type { ChannelStore } from '#shared/repositories/channels';
import type { StaleReport } from '#shared/schemas/import-report';
import { classifyAsNew, classifyChannels, staleChannels } from './classify.ts';
import { type Deadline, startDeadline, untilAborted } from './deadline.ts';
import { parseDsn } from './dsn.ts';
import { detectFamily } from './families/detect.ts';
import type { Family, FamilyKind } from './families/family.ts';
import type { OpenSource } from './legacy-source.ts';
import { type Lookalike, lookalikeOf } from './lookalike.ts';
import { createRowMapper, type RowOutcome } from './mapping.ts';
import { type ImportReport, ReportBuilder } from './report.ts';
import type { RowSource, SourceOrigin } from './source.ts';
import { type LookupFn, resolveTarget } from './target.ts';
import { checkTokensImport, importSourceTokens, type SourceTokensDeps } from './tokens/source-tokens.ts';
import { WriteBehind, withWrittenCount } from './write-behind.ts';

export interface ImportInput {
  /** The legacy gateway's DSN; holds a password, so it is never logged or echoed. */
  dsn: string;
  /** Map, classify and report, but write nothing. */
  dryRun: boolean;
  /** The family the operator chose: the table is read as its, whatever its columns say (families/detect.ts). */
  family?: FamilyKind;
  /** Also carry the gateway's tokens over as relay keys (docs/relay.md, "Keys carried over from the legacy gateway"). */
  tokens?: boolean;
}

/** What every import needs, whatever its source. */
export interface ImportCoreDeps {
  repo: ChannelStore;
  /** The families a table may belong to (functions/import-legacygw/families). */
  families: readonly Family[];
  /** The deployment's channel-id key (functions/import-legacygw/identity.ts); read once per execution environment. */
  channelIdKey: () => Promise<Buffer>;
  config: {
    /** LEGACYGW_MAX_ROWS */
    maxRows: number;
    /** LEGACYGW_DEADLINE_MS: the whole import, from parsing the request to the last write. */
    deadlineMs: number;
  };
  /** The one clock of an import: timestamps and the deadline. */
  now: () => Date;
  logger: Pick<Logger, 'info'>;
}

export interface ImportDeps extends ImportCoreDeps, SourceTokensDeps {
  openSource: OpenSource;
  config: ImportCoreDeps['config'] & {
    /** LEGACYGW_ALLOWED_HOSTS, parsed at cold start. */
    allowedHosts: AllowList;
  };
  /** DNS lookup; the system resolver unless a test substitutes one. */
  lookup?: LookupFn;
}

// Channels classified per round trip: one BatchGetItem, then four BatchWriteItem calls of 25.
const CHUNK_CHANNELS = 100;
// Chunks being read, classified and written behind the row stream while the next rows are mapped. Reads
// overlap with mapping and with earlier chunks' writes; the repository bounds the BatchWriteItem calls in flight
// across chunks, so more chunks only hold more in memory. The next rows are pulled only once a chunk is queued,
// so memory stays flat whatever the table size (docs/performance.md has the measurements).
const CHUNKS_IN_FLIGHT = 3;

/**
 * Imports the channels of a legacy gateway database (docs/channel-import.md): parse the DSN, check the target, open
 * the source, and run the import core over it. At the deadline the connection is destroyed and
 * DeadlineExceededError reports exactly what was written; running the same import again completes it.
 */
export async function importLegacyGw(input: ImportInput, deps: ImportDeps): Promise<ImportReport> {
  const dsn = parseDsn(input.dsn);
  const deadline = startDeadline(deps);
  const { signal } = deadline;
  let source: RowSource | undefined;
  try {
    const target = await untilAborted(resolveTarget(dsn.host, deps.config.allowedHosts, deps.lookup), signal);
    source = await deps.openSource(dsn, target, {
      signal,
      deadlineAt: deadline.at,
      now: () => deps.now().getTime(),
    });
    if (input.tokens) await checkTokensImport(source, deps);
    const report = await importFromSource(source, input.dryRun, deadline, deps, input.family);
    return input.tokens ? await importSourceTokens(source, report, deadline, deps) : report;
  } catch (e) {
    if (signal.aborted && !(e instanceof ProxyApiError)) throw new DeadlineExceededError(0, { cause: e });
    throw e;
  } finally {
    deadline.clear();
    await source?.close();
  }
}

/**
 * The import core (docs/channel-import.md): detects the table's family from its columns, streams the rows through
 * the family's mapper, and classifies and writes the channels in chunks behind the stream. It knows no source and
 * no family by name. Rows are never loaded all at once. `family`: the operator's choice, read whatever the columns say.
 */
export async function importFromSource(
  source: RowSource,
  dryRun: boolean,
  deadline: Deadline,
  deps: ImportCoreDeps,
  family?: FamilyKind,
): Promise<ImportReport> {
  const { signal } = deadline;
  const origin = source.origin;
  const report = new ReportBuilder();
  const timestamp = deps.now().toISOString();
  const writes = new WriteBehind(CHUNKS_IN_FLIGHT);

  // Set once, before the first chunk is classified: whether the table held no channel when this import started.
  let tableWasEmpty = false;
  // Every id a row of this run produces (and the unkeyed ids those move from): the stored channels outside it are
  // stale (docs/channel-import.md, "Stale channels").
  const produced = new Set<string>();

  const classifyAndWrite = async (rows: readonly Extract<RowOutcome, { outcome: 'imported' }>[]): Promise<number> => {
    const channels = rows.flatMap((r) => r.channels);
    const c = { repo: deps.repo, origin, timestamp, signal, counts: report.channels, produced };
    const chunk = tableWasEmpty ? classifyAsNew(channels, c) : await classifyChannels(channels, c);
    for (const row of rows)
      report.rowServed(
        row,
        row.channels.some((ch) => chunk.enabledAfter.get(ch.id) === true),
      );
    if (dryRun || chunk.changes.length === 0) return 0;
    return deps.repo.putMany(chunk.changes, { signal, deletes: chunk.moved });
  };
  const flush = async (rows: Extract<RowOutcome, { outcome: 'imported' }>[]): Promise<void> => {
    writes.throwIfFailed();
    if (rows.length > 0) await writes.start(() => classifyAndWrite(rows));
  };

  deps.logger.info('Import started', { ...origin, dryRun });
  let kind: Family['kind'] | undefined;
  let mapper: ReturnType<typeof createRowMapper> | undefined;
  let stale: StaleReport | undefined;
  let lookalike: Lookalike | undefined;
  try {
    // Checked while the columns are read; awaited before the first row is read. The side branch only keeps a
    // failure from being unhandled when reading the columns fails first.
    const emptyCheck = deps.repo.isEmpty({ signal });
    emptyCheck.catch(() => {});
    const idKey = await untilAborted(deps.channelIdKey(), signal);
    const columns = await source.columns();
    const detected = detectFamily(columns, deps.families, origin.database, family);
    kind = detected.family.kind;
    if (family === undefined) lookalike = lookalikeOf(detected.family, columns, deps.families);
    const rowCount = await source.count();
    if (rowCount > deps.config.maxRows) throw tooManyRows(deps.config.maxRows, rowCount);
    tableWasEmpty = await untilAborted(emptyCheck, signal);
    mapper = createRowMapper({ family: detected.family, idKey, foreign: detected.foreign });
    let pending: Extract<RowOutcome, { outcome: 'imported' }>[] = [];
    let pendingChannels = 0;
    for await (const row of source.rows(detected.select, deps.config.maxRows)) {
      if (report.rows.read >= deps.config.maxRows) throw tooManyRows(deps.config.maxRows);
      // A source that never waits (rows sent in the request) lets no timer run: the clock is read between rows.
      deadline.check();
      const outcome = mapper.map(row);
      lookalike?.see(row.values.type);
      report.addRow(outcome);
      if (outcome.outcome === 'imported') {
        for (const channel of outcome.channels) produced.add(channel.id);
        pending.push(outcome);
        pendingChannels += outcome.channels.length;
      } else if (outcome.identicalTo !== undefined) {
        // It serves its routes when the row it collapsed into does, which may not be classified yet.
        report.rowCollapsed(outcome, outcome.identicalTo);
      } else report.rowServed(outcome, false);
      if (pendingChannels >= CHUNK_CHANNELS) {
        const chunk = pending;
        pending = [];
        pendingChannels = 0;
        await flush(chunk);
      }
    }
    await flush(pending);
    await writes.drain();
    if (!tableWasEmpty) stale = await staleChannels(deps.repo, produced, signal);
  } catch (e) {
    // A write that failed before whatever stopped the loop is the first failure; the writes still in
    // flight are waited for either way, so the count below is the run's total.
    const failure = writes.failure ?? { error: e };
    await writes.settle();
    if (signal.aborted) throw new DeadlineExceededError(writes.written, { cause: failure.error });
    throw withWrittenCount(failure.error, writes.written);
  }
  const notes: string[] = [];
  const ambiguity = lookalike?.note();
  if (ambiguity !== undefined) notes.push(ambiguity);
  const result = report.build(
    dryRun,
    { ...reportOrigin(origin), kind: kind ?? 'oneapi' },
    mapper?.foreignInUse() ?? [],
    stale,
  );
  if (result.source.rows === 0) {
    // An all-zero report reads like a failure: say why it is empty and what to check.
    notes.push(
      origin.engine === 'rows'
        ? 'The channels table sent holds no rows: nothing to import.'
        : `The channels table of the database ${JSON.stringify(origin.database)} holds no rows: nothing to import. Check that the DSN names the database the gateway uses (its SQL_DSN).`,
    );
  }
  const notServable = report.notServableProviders();
  if (notServable.length > 0) {
    result.notServable = notServable;
    const total = notServable.reduce((sum, p) => sum + p.channels, 0);
    const which = notServable.map((p) => `${p.provider} (${p.channels})`).join(', ');
    notes.push(
      `${total} enabled channel${total === 1 ? ' is' : 's are'} of a provider the relay cannot serve yet: ${which}. They are kept, but no /v1 request reaches them (see "notServable").`,
    );
  }
  if (notes.length > 0) result.notes = notes;
  deps.logger.info('Import finished', {
    ...origin,
    kind,
    dryRun,
    rows: result.source.rows,
    imported: result.rows.imported,
    skipped: result.rows.skipped,
    ...result.channels,
    written: writes.written,
  });
  return result;
}

function reportOrigin(origin: SourceOrigin): { host: string; port: number; database: string } {
  return { host: origin.host, port: origin.port, database: origin.database };
}

function tooManyRows(maxRows: number, rows?: number): ProxyApiError {
  const found = rows === undefined ? 'more than' : `${rows} rows;`;
  return new ProxyApiError(
    400,
    `The channels table has too many rows (${found} at most ${maxRows} can be imported, see LEGACYGW_MAX_ROWS)`,
  );
}
