import type { Logger } from '@aws-lambda-powertools/logger';
import type { AllowList } from '#shared/allow-list';
import { ChannelsNotStoredError, DeadlineExceededError, ProxyApiError } from '#shared/errors';
import {
  type ChannelStore,
  ChannelWriteError,
  type ComparedChannel,
  type StoredChannel,
} from '#shared/repositories/channels';
import type { StaleItem, StaleReport } from '#shared/schemas/import-report';
import { parseDsn } from './dsn.ts';
import { detectFamily } from './families/detect.ts';
import type { Family, FamilyKind } from './families/family.ts';
import { unkeyedChannelId } from './identity.ts';
import type { OpenSource } from './legacy-source.ts';
import { createRowMapper, type LegacyId, type MappedChannel, type RowOutcome, sameSettings } from './mapping.ts';
import { type ImportReport, MAX_REPORT_ITEMS, ReportBuilder } from './report.ts';
import type { RowSource, SourceOrigin } from './source.ts';
import { type LookupFn, resolveTarget } from './target.ts';
import { checkTokensImport, importSourceTokens, type SourceTokensDeps } from './tokens/source-tokens.ts';

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

/** The abort reason at the deadline; turned into DeadlineExceededError with the count written so far. */
class DeadlineReached extends Error {
  constructor() {
    super('The import deadline passed');
    this.name = 'DeadlineReached';
  }
}

/** The deadline of one import: a signal that aborts at it, and the instant as epoch milliseconds. */
export interface Deadline {
  readonly signal: AbortSignal;
  readonly at: number;
  /** Aborts the signal now when the clock is past `at` (its timer may not have run yet), then throws its reason. */
  check(): void;
  clear(): void;
}

/** Starts an import's deadline clock. */
export function startDeadline(deps: Pick<ImportCoreDeps, 'config' | 'now'>): Deadline {
  const controller = new AbortController();
  const at = deps.now().getTime() + deps.config.deadlineMs;
  const timer = setTimeout(() => controller.abort(new DeadlineReached()), deps.config.deadlineMs);
  const check = () => {
    if (!controller.signal.aborted && deps.now().getTime() >= at) controller.abort(new DeadlineReached());
    controller.signal.throwIfAborted();
  };
  return { signal: controller.signal, at, check, clear: () => clearTimeout(timer) };
}

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
    const changes: StoredChannel[] = [];
    const moved: string[] = [];
    if (tableWasEmpty) {
      // docs/channel-import.md, "An import into an empty table": every id is then new (the mapper never hands the same
      // id over twice), so there is nothing to compare and no edit to protect, and the reads are skipped.
      for (const row of rows) {
        let isServed = false;
        for (const channel of row.channels) {
          changes.push(toStored(channel, origin, timestamp, timestamp));
          isServed ||= channel.status === 'enabled';
        }
        report.channels.created += row.channels.length;
        rowClassified(row, isServed);
      }
    } else {
      const channels = rows.flatMap((r) => r.channels);
      const enabledAfter = await classify(channels, changes, moved);
      for (const row of rows) {
        const isServed = row.channels.some((c) => enabledAfter.get(c.id) === true);
        rowClassified(row, isServed);
      }
    }
    if (dryRun || changes.length === 0) return 0;
    return deps.repo.putMany(changes, { signal, deletes: moved });
  };
  const rowClassified = (row: Extract<RowOutcome, { outcome: 'imported' }>, isServed: boolean) => {
    report.rowServed(row, isServed);
  };
  // Reads what is stored under the channels' ids, counts each channel and lists what to write; returns whether each
  // channel is enabled after the import.
  const classify = async (
    channels: readonly MappedChannel[],
    changes: StoredChannel[],
    moved: string[],
  ): Promise<Map<string, boolean>> => {
    const existing = await deps.repo.getCompared(
      channels.map((c) => c.id),
      { signal },
    );
    // docs/channel-import.md, "Moving to keyed ids": a channel not found under its id may be stored under the id an
    // import before keyed ids gave it; it moves to its keyed id with everything an operator edited.
    const missing = channels.filter((c) => !existing.has(c.id));
    const unkeyed =
      missing.length === 0
        ? new Map<string, StoredChannel>()
        : await deps.repo.getMany(
            missing.map((c) => unkeyedIdOf(c)),
            { signal },
          );
    const enabledAfter = new Map<string, boolean>();
    for (const channel of channels) {
      const before = existing.get(channel.id);
      const old = before === undefined && unkeyed.size > 0 ? unkeyed.get(unkeyedIdOf(channel)) : undefined;
      if (before === undefined && old !== undefined && sameLegacyId(old.source?.legacyId, channel.legacyId)) {
        unkeyed.delete(unkeyedIdOf(channel));
        moved.push(old.id);
        produced.add(old.id);
        const keep = operatorOwned(old);
        if (keep) report.channels.edited += 1;
        else if (differs(old, channel)) report.channels.updated += 1;
        else report.channels.unchanged += 1;
        const stored = keep
          ? { ...old, id: channel.id }
          : toStored(channel, origin, old.createdAt ?? timestamp, timestamp);
        changes.push(stored);
        enabledAfter.set(channel.id, stored.status === 'enabled');
      } else if (before === undefined) {
        report.channels.created += 1;
        changes.push(toStored(channel, origin, timestamp, timestamp));
        enabledAfter.set(channel.id, channel.status === 'enabled');
      } else if (operatorOwned(before)) {
        // An operator corrected it through the review API, or the relay disabled it: that wins over the legacy row.
        report.channels.edited += 1;
        enabledAfter.set(channel.id, before.status === 'enabled');
      } else if (differs(before, channel)) {
        report.channels.updated += 1;
        changes.push(toStored(channel, origin, before.createdAt ?? timestamp, timestamp));
        enabledAfter.set(channel.id, channel.status === 'enabled');
      } else {
        report.channels.unchanged += 1;
        enabledAfter.set(channel.id, channel.status === 'enabled');
      }
    }
    return enabledAfter;
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

/**
 * The stored channels no row of this run produces (docs/channel-import.md, "Stale channels"): every id is scanned
 * (the import may scan ids only), and the first MAX_REPORT_ITEMS by id are read for the report, enabled ones listed
 * first. Undefined when there is none. Nothing is changed: an operator decides.
 */
async function staleChannels(
  repo: ChannelStore,
  produced: ReadonlySet<string>,
  signal: AbortSignal,
): Promise<StaleReport | undefined> {
  const ids = (await repo.scanIds({ signal })).filter((id) => !produced.has(id)).sort();
  if (ids.length === 0) return undefined;
  const listed = ids.slice(0, MAX_REPORT_ITEMS);
  const found = await repo.getSummaries(listed, { signal });
  const items = listed.flatMap((id): StaleItem[] => {
    const channel = found.get(id);
    if (channel === undefined) return [];
    const legacyId = channel.source?.legacyId;
    return [
      {
        id,
        name: channel.name,
        provider: channel.provider,
        status: channel.status,
        ...(legacyId === undefined ? {} : { legacyId }),
      },
    ];
  });
  items.sort((a, b) => Number(b.status === 'enabled') - Number(a.status === 'enabled'));
  return { count: ids.length, items, itemsTruncated: ids.length > listed.length };
}

/** Rows whose type an older version of another family reads differently (docs/channel-import.md, "Ambiguity"). */
interface Lookalike {
  see(typeText: string | null | undefined): void;
  note(): string | undefined;
}

function lookalikeOf(family: Family, columns: ReadonlySet<string>, families: readonly Family[]): Lookalike | undefined {
  const other = family.lookalike?.applies(columns)
    ? families.find((f) => f.kind === family.lookalike?.kind)
    : undefined;
  if (other === undefined) return undefined;
  const types = new Set<number>();
  let rows = 0;
  return {
    see(typeText) {
      const text = typeText?.trim() ?? '';
      if (!/^\d{1,9}$/.test(text)) return;
      const type = Number(text);
      if (family.types.get(type)?.provider === other.types.get(type)?.provider) return;
      rows += 1;
      if (types.size < 20) types.add(type);
    },
    note() {
      if (rows === 0) return undefined;
      const listed = [...types].sort((a, b) => a - b).join(', ');
      return (
        `The table's columns are also those of an older ${other.name}, which reads the type of ${rows} row(s) ` +
        `differently (types ${listed}${types.size < rows && types.size === 20 ? ', ...' : ''}). It was read as ` +
        `${family.name}'s; if ${other.name} wrote it, import it again with "family": "${other.kind}".`
      );
    },
  };
}

function reportOrigin(origin: SourceOrigin): { host: string; port: number; database: string } {
  return { host: origin.host, port: origin.port, database: origin.database };
}

function sameLegacyId(stored: number | string | undefined, legacyId: LegacyId): boolean {
  return stored !== undefined && String(stored) === String(legacyId);
}

function tooManyRows(maxRows: number, rows?: number): ProxyApiError {
  const found = rows === undefined ? 'more than' : `${rows} rows;`;
  return new ProxyApiError(
    400,
    `The channels table has too many rows (${found} at most ${maxRows} can be imported, see LEGACYGW_MAX_ROWS)`,
  );
}

/**
 * The chunks read, classified and written behind the row stream: at most `limit` at once. Every write's count is
 * added up, whether it succeeds or gives up part-way, and the first failure is kept. The promises it
 * holds never reject, so a write that fails while the import is reading is never an unhandled rejection.
 */
class WriteBehind {
  written = 0;
  /** The first write failure, boxed because anything can be thrown. */
  failure: { error: unknown } | undefined;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly limit: number) {}

  /** Waits for a free slot, then starts `write` without waiting for it; throws the first failure instead. */
  async start(write: () => Promise<number>): Promise<void> {
    while (this.inFlight.size >= this.limit) await Promise.race(this.inFlight);
    this.throwIfFailed();
    const settled: Promise<void> = write()
      .then(
        (count) => {
          this.written += count;
        },
        (error: unknown) => {
          if (error instanceof ChannelWriteError) this.written += error.written;
          this.failure ??= { error };
        },
      )
      .finally(() => this.inFlight.delete(settled));
    this.inFlight.add(settled);
  }

  /** Waits for every write in flight, then throws the first failure, if any. */
  async drain(): Promise<void> {
    await this.settle();
    this.throwIfFailed();
  }

  /** Waits for every write in flight, whatever their outcome. */
  async settle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all(this.inFlight);
  }

  throwIfFailed(): void {
    if (this.failure !== undefined) throw this.failure.error;
  }
}

/**
 * A failure after channels were stored says how many in total, so the caller knows that a re-run completes the
 * import: a lost database connection (502) gets the count in its message; a write failure (500) says the run's total
 * rather than its last chunk's.
 */
function withWrittenCount(error: unknown, written: number): unknown {
  if (error instanceof ChannelWriteError) return new ChannelsNotStoredError(written, { cause: error.cause });
  if (written > 0 && error instanceof ProxyApiError && error.httpStatus === 502) {
    return new ProxyApiError(
      502,
      `${error.message}; ${written} channel(s) were written before it stopped. Run the same import again to complete it.`,
      { cause: error },
    );
  }
  return error;
}

// docs/channel-import.md: an existing channel counts `updated` when anything the legacy row decides differs. The key
// and the legacy id make the id, so they cannot.
/**
 * An edited channel, or one the relay disabled (`auto-disabled`: a re-import must never re-enable it silently), is
 * left as it is and counted in `channels.edited` (docs/channel-review-api.md, "Auto-disabled channels").
 */
const operatorOwned = (channel: Pick<ComparedChannel, 'editedAt' | 'status'>): boolean =>
  channel.editedAt !== undefined || channel.status === 'auto-disabled';

function differs(before: ComparedChannel, channel: MappedChannel): boolean {
  return (
    before.provider !== channel.provider ||
    before.legacyType !== channel.legacyType ||
    before.baseUrl !== channel.baseUrl ||
    before.name !== channel.name ||
    before.status !== channel.status ||
    !Array.isArray(before.models) ||
    before.models.length !== channel.models.length ||
    before.models.some((m, i) => m !== channel.models[i]) ||
    !sameSettings(before.settings, channel.settings)
  );
}

function toStored(
  channel: MappedChannel,
  origin: { host: string; database: string },
  createdAt: string,
  updatedAt: string,
): StoredChannel {
  // The mapped channel is the stored one but for where it came from and when (spelled out: once per channel).
  return {
    id: channel.id,
    provider: channel.provider,
    legacyType: channel.legacyType,
    name: channel.name,
    baseUrl: channel.baseUrl,
    // The mapper gave each channel a list of its own.
    models: channel.models,
    key: channel.key,
    status: channel.status,
    ...(channel.settings !== undefined ? { settings: channel.settings } : {}),
    source: { legacyId: channel.legacyId, host: origin.host, database: origin.database },
    createdAt,
    updatedAt,
  };
}

/** The id an import before keyed ids gave this channel: worked out only for a channel not found under its own. */
function unkeyedIdOf(channel: MappedChannel): string {
  return unkeyedChannelId(channel.provider, channel.baseUrl, channel.key);
}

/** Settles with `promise`, or rejects with the signal's reason once it aborts (DNS lookups take no signal). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
