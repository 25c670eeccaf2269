import type { OversizeValue } from './oversize-value.ts';
import type { ImportReport, ReportItem, RouteItem } from './schemas/import-report.ts';

/*
 * Sending a `channels` table to POST /api/channels/import/rows in calls, and adding up the calls' reports
 * (docs/channel-import.md, "Rows sent by a client"). Pure and free of Node and of runtime dependencies: the console
 * page (in the browser) and the terminal import (`npm run import:sqlite`) both use it.
 */

/** Most rows one call may carry. */
export const ROWS_PER_CALL = 5_000;

/** Largest body of one call, in bytes of UTF-8. */
export const ROWS_BODY_BYTES = 5 * 1024 * 1024;

/**
 * Largest body of one call as API Gateway writes it into the Lambda event, where the body is a JSON string: every
 * `"` and `\` takes two bytes, and a character outside ASCII may take six (`\uXXXX`). Lambda refuses an event over
 * 6 MiB before the function runs, so a client keeps this size under 5.75 MiB: the rest of the event (headers,
 * request context) has 256 KiB.
 */
export const ROWS_EVENT_BYTES = 5.75 * 1024 * 1024;

/** Most reports' items (and route items) a summed report lists, as one import's report does. */
export const SUMMED_ITEMS = 1_000;

/**
 * One cell as a client sends it: text, a number (an integer beyond 2^53 must be sent as text), null, or the marker of
 * a value the client did not read because it is over its reader's cap (shared/oversize-value.ts).
 */
export type RowCell = string | number | null | OversizeValue;

/** The body of one call. */
export interface RowsCall {
  columns: string[];
  rows: RowCell[][];
  dryRun?: boolean;
  /** The gateway the operator said wrote the table (docs/channel-import.md, "Forks"); absent: detected. */
  family?: FamilyChoice;
  /** The SQLite file's name (no directory), recorded as the import's source (docs/channel-import.md). */
  file?: string;
}

/** The families an operator may choose for a fork's table. */
export const FAMILY_CHOICES = ['oneapi', 'newapi', 'onehub', 'donehub'] as const;
export type FamilyChoice = (typeof FAMILY_CHOICES)[number];

/** The sizes that bound one call: its body's UTF-8 bytes and its size inside the Lambda event. */
export interface CallSize {
  bytes: number;
  eventBytes: number;
}

/** The size of a JSON text as a body and as a string inside the Lambda event (see ROWS_EVENT_BYTES). */
export function jsonSize(json: string): CallSize {
  let bytes = 0;
  let eventBytes = 0;
  for (let i = 0; i < json.length; i += 1) {
    const c = json.charCodeAt(i);
    if (c < 0x80) {
      bytes += 1;
      eventBytes += c === 0x22 || c === 0x5c ? 2 : 1;
    } else {
      // A surrogate pair is four bytes of UTF-8 (two per half) and two escapes of six.
      bytes += c < 0x800 ? 2 : c >= 0xd800 && c <= 0xdfff ? 2 : 3;
      eventBytes += 6;
    }
  }
  return { bytes, eventBytes };
}

/** Why one row cannot be sent at all: alone, it makes a call over the limits. */
export class RowTooLargeError extends Error {
  constructor(
    /** Position of the row in the order it was given (0-based). */
    readonly index: number,
    readonly size: CallSize,
  ) {
    super(
      `Row ${index + 1} of the channels table is too large to send (${Math.ceil(size.bytes / 1024).toLocaleString('en')} KiB): a call carries at most 5 MiB`,
    );
    this.name = 'RowTooLargeError';
  }
}

/**
 * Groups rows into calls of at most ROWS_PER_CALL rows whose body stays within ROWS_BODY_BYTES and ROWS_EVENT_BYTES,
 * in the order given (send them ordered by id: the import reads a table in id order). Each row is measured once.
 * A table without rows is one call without rows, so the server still checks its columns. A row that fits no call
 * even alone (hostile values, each within the reader's cap, whose JSON escaping adds up past the limits) is sent with
 * its largest texts as the oversize marker, so that one row never blocks the rest: the import skips it naming the
 * column, or ignores the marker in a column its family does not read. Throws RowTooLargeError only for a row that
 * fits no call even so.
 */
export function* callsOf(
  columns: readonly string[],
  rows: Iterable<readonly RowCell[]>,
  options: {
    dryRun: boolean;
    family?: FamilyChoice;
    file?: string;
    limits?: Partial<{ rows: number; bytes: number; eventBytes: number }>;
  },
): Generator<RowsCall> {
  const maxRows = options.limits?.rows ?? ROWS_PER_CALL;
  const maxBytes = options.limits?.bytes ?? ROWS_BODY_BYTES;
  const maxEventBytes = options.limits?.eventBytes ?? ROWS_EVENT_BYTES;
  const make = (batch: RowCell[][]): RowsCall => ({
    columns: [...columns],
    rows: batch,
    dryRun: options.dryRun,
    ...(options.family === undefined ? {} : { family: options.family }),
    ...(options.file === undefined ? {} : { file: options.file }),
  });
  // The body without rows; each row adds its JSON and a comma.
  const empty = jsonSize(JSON.stringify(make([])));
  let batch: RowCell[][] = [];
  let size = { ...empty };
  let index = 0;
  for (const given of rows) {
    let row = given;
    let own = jsonSize(JSON.stringify(row));
    const comma = batch.length === 0 ? 0 : 1;
    const fits = (s: CallSize, extra: number) =>
      s.bytes + own.bytes + extra <= maxBytes && s.eventBytes + own.eventBytes + extra <= maxEventBytes;
    if (!fits(empty, 0)) {
      row = withLargestAsMarkers(row, { bytes: maxBytes - empty.bytes, eventBytes: maxEventBytes - empty.eventBytes });
      own = jsonSize(JSON.stringify(row));
      if (!fits(empty, 0)) throw new RowTooLargeError(index, { bytes: empty.bytes + own.bytes, eventBytes: 0 });
    }
    if (batch.length >= maxRows || !fits(size, comma)) {
      yield make(batch);
      batch = [];
      size = { ...empty };
    }
    const extra = batch.length === 0 ? 0 : 1;
    batch.push([...row]);
    size = { bytes: size.bytes + own.bytes + extra, eventBytes: size.eventBytes + own.eventBytes + extra };
    index += 1;
  }
  if (batch.length > 0 || index === 0) yield make(batch);
}

/**
 * The row with its largest texts (by their size inside the Lambda event) replaced by the oversize marker, largest
 * first, until the row alone is within `room`. The marker carries the text's UTF-8 size.
 */
function withLargestAsMarkers(row: readonly RowCell[], room: CallSize): RowCell[] {
  const out = [...row];
  const sizes = out.map((cell) => (typeof cell === 'string' ? jsonSize(JSON.stringify(cell)) : undefined));
  let total = jsonSize(JSON.stringify(out));
  const largestFirst = sizes
    .map((size, i) => ({ size, i }))
    .filter((c): c is { size: CallSize; i: number } => c.size !== undefined)
    .sort((a, b) => b.size.eventBytes - a.size.eventBytes);
  for (const { size, i } of largestFirst) {
    if (total.bytes <= room.bytes && total.eventBytes <= room.eventBytes) break;
    const marker: OversizeValue = { oversizeBytes: utf8Bytes(out[i] as string) };
    const markerSize = jsonSize(JSON.stringify(marker));
    out[i] = marker;
    total = {
      bytes: total.bytes - size.bytes + markerSize.bytes,
      eventBytes: total.eventBytes - size.eventBytes + markerSize.eventBytes,
    };
  }
  return out;
}

function utf8Bytes(text: string): number {
  return jsonSize(text).bytes;
}

/**
 * The reports of the calls that sent one table, added up; `calls` says how many there were. What is exact across
 * calls is in docs/channel-import.md, "Several calls": rows, channels and items are; a row identical to a row of
 * another call is not collapsed into it; the route figures are exact as `exact` says.
 */
export interface SummedReport extends ImportReport {
  calls: number;
  exact: {
    /**
     * Which routes are lost and which changed. False when a call listed a lost route and another call may serve it:
     * a call that serves a route completely does not list it, so a route shown lost may in truth be changed (the
     * number of routes lost or changed together stays exact).
     */
    lost: boolean;
    /**
     * `routes.total` and `routes.kept`. False with several calls: a route named by rows of two calls counts in both
     * calls' totals unless both list it, so both figures are upper bounds.
     */
    totals: boolean;
  };
}

/**
 * Adds up the reports of the calls that sent one table (docs/channel-import.md, "Several calls"). The first report
 * gives `dryRun` and the source; rows, channels and items are summed; routes are summed per (group, model) over the
 * calls that list them and classified again: a route any call lists as changed is changed, one every listing call
 * lost is lost.
 */
export function sumReports(reports: readonly ImportReport[]): SummedReport {
  const [first, ...more] = reports;
  if (first === undefined) throw new Error('No report to sum');
  if (more.length === 0) return { ...first, calls: 1, exact: { lost: true, totals: true } };
  const items: ReportItem[] = [];
  let itemsTruncated = false;
  const routes = new Map<string, RouteItem & { calls: number }>();
  const sum = { rows: 0, imported: 0, skipped: 0, created: 0, updated: 0, unchanged: 0, edited: 0 };
  const routeSum = { total: 0, lost: 0, changed: 0 };
  let routeItemsTruncated = false;
  let complete = true;
  const unread = new Set<string>();
  for (const report of reports) {
    for (const column of report.routes.unreadColumns ?? []) unread.add(column);
    sum.rows += report.source.rows;
    sum.imported += report.rows.imported;
    sum.skipped += report.rows.skipped;
    sum.created += report.channels.created;
    sum.updated += report.channels.updated;
    sum.unchanged += report.channels.unchanged;
    sum.edited += report.channels.edited;
    routeSum.total += report.routes.total;
    routeSum.lost += report.routes.lost;
    routeSum.changed += report.routes.changed;
    for (const item of report.items) {
      if (items.length < SUMMED_ITEMS) items.push(item);
      else itemsTruncated = true;
    }
    itemsTruncated ||= report.itemsTruncated;
    routeItemsTruncated ||= report.routes.itemsTruncated;
    complete &&= report.routes.complete;
    for (const route of report.routes.items) {
      // JSON of the pair: no separator character could be confused with a name.
      const key = JSON.stringify([route.group, route.model]);
      const before = routes.get(key);
      routes.set(
        key,
        before === undefined
          ? { ...route, calls: 1 }
          : {
              ...before,
              legacy: before.legacy + route.legacy,
              imported: before.imported + route.imported,
              calls: before.calls + 1,
            },
      );
    }
  }
  const all = [...routes.values()];
  const strip = ({ calls: _calls, ...route }: RouteItem & { calls: number }): RouteItem => route;
  const lost = all
    .filter((r) => r.imported === 0)
    .sort(byModelThenGroup)
    .map(strip);
  const changed = all
    .filter((r) => r.imported > 0)
    .sort(byModelThenGroup)
    .map(strip);
  const listed = [...lost, ...changed];
  // A route listed by several calls is in each one's total: counted once. Other overlaps cannot be seen.
  const overlaps = all.reduce((n, r) => n + r.calls - 1, 0);
  const total = routeSum.total - overlaps;
  // Past a call's 1,000 listed routes only its figures are known: they are added as they are.
  const lostCount = routeItemsTruncated ? routeSum.lost : lost.length;
  const changedCount = routeItemsTruncated ? routeSum.changed : changed.length;
  return {
    dryRun: first.dryRun,
    source: { ...first.source, rows: sum.rows },
    rows: { imported: sum.imported, skipped: sum.skipped },
    channels: { created: sum.created, updated: sum.updated, unchanged: sum.unchanged, edited: sum.edited },
    items,
    itemsTruncated,
    routes: {
      total,
      kept: Math.max(0, total - lostCount - changedCount),
      changed: changedCount,
      lost: lostCount,
      items: listed.slice(0, SUMMED_ITEMS),
      itemsTruncated: routeItemsTruncated || listed.length > SUMMED_ITEMS,
      complete,
      ...(unread.size > 0 ? { unreadColumns: [...unread].sort() } : {}),
    },
    ...staleOfCalls(reports),
    // Each call's own notes, once each (a call's counts cover its rows only).
    ...notesOfCalls(reports),
    calls: reports.length,
    exact: { lost: routeSum.lost === 0 && !routeItemsTruncated, totals: false },
  };
}

/**
 * A channel is stale for the whole table when no call produced it: each call compares the stored channels with its
 * own rows only, so the table's stale channels are those every call lists. When a call listed only its first 1,000,
 * the intersection may miss some: `itemsTruncated` then says so and `count` is the smallest call's (an upper bound).
 */
function staleOfCalls(reports: readonly ImportReport[]): Pick<ImportReport, 'stale'> {
  let items = reports[0]?.stale?.items ?? [];
  for (const report of reports.slice(1)) {
    const ids = new Set((report.stale?.items ?? []).map((item) => item.id));
    items = items.filter((item) => ids.has(item.id));
  }
  const truncated = reports.some((r) => r.stale?.itemsTruncated === true);
  const count = truncated ? Math.min(...reports.map((r) => r.stale?.count ?? 0)) : items.length;
  return count === 0 ? {} : { stale: { count, items, itemsTruncated: truncated } };
}

function notesOfCalls(reports: readonly ImportReport[]): Pick<ImportReport, 'notes'> {
  const notes = [...new Set(reports.flatMap((r) => r.notes ?? []))].slice(0, 10);
  return notes.length > 0 ? { notes } : {};
}

// Code-unit order, as the import orders its route items.
function byModelThenGroup(a: RouteItem, b: RouteItem): number {
  return compare(a.model, b.model) || compare(a.group, b.group);
}

function compare(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}
