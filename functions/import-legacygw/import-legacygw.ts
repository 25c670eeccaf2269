import type { Logger } from '@aws-lambda-powertools/logger';
import type { AllowList } from '#shared/allow-list';
import { ChannelsNotStoredError, DeadlineExceededError, ProxyApiError } from '#shared/errors';
import {
  type ChannelStore,
  ChannelWriteError,
  type ComparedChannel,
  type StoredChannel,
} from '#shared/repositories/channels';
import { describeDsn, parseDsn } from './dsn.ts';
import type { LegacySource, OpenSource } from './legacy-source.ts';
import { createRowMapper, type LegacyRow, type MappedChannel, splitModels } from './mapping.ts';
import { type ImportReport, ReportBuilder } from './report.ts';
import { type RouteRow, rowGroups } from './routes.ts';
import { type LookupFn, resolveTarget } from './target.ts';

export interface ImportInput {
  /** The legacy gateway's DSN; holds a password, so it is never logged or echoed. */
  dsn: string;
  /** Map, classify and report, but write nothing. */
  dryRun: boolean;
}

export interface ImportDeps {
  openSource: OpenSource;
  repo: ChannelStore;
  config: {
    /** LEGACYGW_MAX_ROWS */
    maxRows: number;
    /** LEGACYGW_DEADLINE_MS: the whole import, from parsing the DSN to the last write. */
    deadlineMs: number;
    /** LEGACYGW_ALLOWED_HOSTS, parsed at cold start. */
    allowedHosts: AllowList;
  };
  /** The one clock of an import: timestamps and the deadline. */
  now: () => Date;
  logger: Pick<Logger, 'info'>;
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

const NOTHING_STORED: ReadonlyMap<string, ComparedChannel> = new Map();

/** The abort reason at the deadline; turned into DeadlineExceededError with the count written so far. */
class DeadlineReached extends Error {
  constructor() {
    super('The import deadline passed');
    this.name = 'DeadlineReached';
  }
}

/**
 * Imports the channels of a legacy gateway database (docs/channel-import.md): parse the DSN, check the target, stream
 * the rows through the mapper, and classify and write them in chunks. Rows are never loaded all at
 * once. At the deadline the connection is destroyed and DeadlineExceededError reports what was written;
 * running the same import again completes it.
 */
export async function importLegacyGw(input: ImportInput, deps: ImportDeps): Promise<ImportReport> {
  const dsn = parseDsn(input.dsn);
  const origin = describeDsn(dsn);
  const deadline = new AbortController();
  const deadlineAt = deps.now().getTime() + deps.config.deadlineMs;
  const timer = setTimeout(() => deadline.abort(new DeadlineReached()), deps.config.deadlineMs);
  const { signal } = deadline;
  const report = new ReportBuilder();
  const timestamp = deps.now().toISOString();
  const writes = new WriteBehind(CHUNKS_IN_FLIGHT);
  let source: LegacySource | undefined;

  // Set once, before the first chunk is classified: whether the table held no channel when this import started.
  let tableWasEmpty = false;

  const classifyAndWrite = async (channels: MappedChannel[], rows: readonly ChunkRow[]): Promise<number> => {
    // docs/channel-import.md, "An import into an empty table": every id is then new (the mapper never hands the same
    // id over twice), so there is nothing to compare and no edit to protect, and the read is skipped.
    const existing = tableWasEmpty
      ? NOTHING_STORED
      : await deps.repo.getCompared(
          channels.map((c) => c.id),
          { signal },
        );
    const changes: StoredChannel[] = [];
    // Ids of the channels that are enabled once this chunk is stored: the routes they serve survive the import.
    const enabled = new Set<string>();
    for (const channel of channels) {
      const before = existing.get(channel.id);
      if (before === undefined) {
        report.channels.created += 1;
        changes.push(toStored(channel, origin, timestamp, timestamp));
      } else if (before.editedAt !== undefined) {
        // An operator corrected it through the review API: their edit wins over the legacy row.
        report.channels.edited += 1;
      } else if (differs(before, channel)) {
        report.channels.updated += 1;
        changes.push(toStored(channel, origin, before.createdAt ?? timestamp, timestamp));
      } else {
        report.channels.unchanged += 1;
      }
      const status = before?.editedAt !== undefined ? before.status : channel.status;
      if (status === 'enabled') enabled.add(channel.id);
    }
    for (const row of rows) {
      const served = row.ids.some((id) => enabled.has(id));
      report.rowRoutes(row.routes, served);
    }
    if (input.dryRun || changes.length === 0) return 0;
    return deps.repo.putMany(changes, { signal });
  };
  const flush = async (channels: MappedChannel[], rows: readonly ChunkRow[]): Promise<void> => {
    writes.throwIfFailed();
    if (channels.length > 0) await writes.start(() => classifyAndWrite(channels, rows));
  };

  deps.logger.info('Legacy import started', { ...origin, dryRun: input.dryRun });
  try {
    // Checked while the source is being opened; awaited before the first row is read. The side branch only keeps a
    // failure from being unhandled when opening the source fails first.
    const emptyCheck = deps.repo.isEmpty({ signal });
    emptyCheck.catch(() => {});
    const target = await untilAborted(resolveTarget(dsn.host, deps.config.allowedHosts, deps.lookup), signal);
    source = await deps.openSource(dsn, target, {
      maxRows: deps.config.maxRows,
      signal,
      deadlineAt,
      now: () => deps.now().getTime(),
    });
    tableWasEmpty = await untilAborted(emptyCheck, signal);
    const mapper = createRowMapper(source.kind);
    let pending: MappedChannel[] = [];
    let pendingRows: ChunkRow[] = [];
    for await (const row of source.rows()) {
      const outcome = mapper.map(row);
      report.addRow(outcome);
      if (outcome.outcome === 'imported') {
        pending.push(...outcome.channels);
        pendingRows.push({
          routes: routeRow(row, outcome.channels[0]?.models),
          ids: outcome.channels.map((c) => c.id),
        });
      } else {
        report.rowRoutes(routeRow(row), false);
      }
      if (pending.length >= CHUNK_CHANNELS) {
        const chunk = pending;
        const chunkRows = pendingRows;
        pending = [];
        pendingRows = [];
        await flush(chunk, chunkRows);
      }
    }
    await flush(pending, pendingRows);
    await writes.drain();
  } catch (e) {
    // A write that failed before whatever stopped the loop is the first failure; the writes still in
    // flight are waited for either way, so the count below is the run's total.
    const failure = writes.failure ?? { error: e };
    await writes.settle();
    if (signal.aborted) throw new DeadlineExceededError(writes.written, { cause: failure.error });
    throw withWrittenCount(failure.error, writes.written);
  } finally {
    clearTimeout(timer);
    await source?.close();
  }
  const kind = source?.kind ?? 'legacygw';
  const result = report.build(input.dryRun, { ...origin, kind });
  deps.logger.info('Legacy import finished', {
    ...origin,
    kind,
    dryRun: input.dryRun,
    rows: result.source.rows,
    imported: result.rows.imported,
    skipped: result.rows.skipped,
    ...result.channels,
    written: writes.written,
  });
  return result;
}

/** An imported row of a chunk: its routes are counted once its channels are classified. */
interface ChunkRow {
  routes: RouteRow;
  ids: string[];
}

/** A row's routes (docs/channel-import.md, "Routes"); `models` when the mapper has split them already. */
function routeRow(row: LegacyRow, models: readonly string[] = splitModels(row.models)): RouteRow {
  return { groups: rowGroups(row.group), models, enabled: row.status === 1 };
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

// docs/channel-import.md: an existing channel counts `updated` when its models, name or status differ. Provider,
// base URL and key are part of the id, so they cannot differ.
function differs(before: ComparedChannel, channel: MappedChannel): boolean {
  return (
    before.name !== channel.name ||
    before.status !== channel.status ||
    !Array.isArray(before.models) ||
    before.models.length !== channel.models.length ||
    before.models.some((m, i) => m !== channel.models[i])
  );
}

function toStored(
  channel: MappedChannel,
  origin: { host: string; database: string },
  createdAt: string,
  updatedAt: string,
): StoredChannel {
  // The mapped channel is the stored one but for where it came from and when.
  const { legacyId, ...fields } = channel;
  const source = { legacyId, host: origin.host, database: origin.database };
  return { ...fields, models: [...channel.models], source, createdAt, updatedAt };
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
