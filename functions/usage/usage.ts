import type { Logger } from '@aws-lambda-powertools/logger';
import { RELAY_ENDPOINTS, type RelayEndpoint } from '#shared/relay/contract';
import type { UsageStore } from '#shared/repositories/usage';
import type { UsageFigures, UsageRecordView, UsageReport } from '#shared/schemas/usage';
import type { UsageQuery } from './schema.ts';

/** Records one call reads at most (about 1 KB each): beyond, the report says `truncated`. */
export const MAX_RECORDS_READ = 10_000;
/** Rows of `byChannel` and `byModel` at most, most requests first. */
export const MAX_GROUP_ROWS = 100;
const QUERY_PAGE = 1_000;
const DAY_MS = 24 * 60 * 60 * 1000;
// Above every character of a request id, so `<to>#<any request id>` sorts below it.
const HIGHEST = '\uffff';

export interface UsageDeps {
  store: UsageStore;
  /** Name and provider of channels by id (the channels table, a projection); those not found are left out. */
  channelLabels?: (ids: readonly string[]) => Promise<ReadonlyMap<string, { name: string; provider: string }>>;
  logger: Pick<Logger, 'info' | 'warn'>;
}

type ChannelRow = UsageReport['byChannel'][number];
type ModelRow = UsageReport['byModel'][number];

const noFigures = (): UsageFigures => ({
  requests: 0,
  errors: 0,
  failovers: 0,
  promptTokens: 0,
  completionTokens: 0,
  totalTokens: 0,
  unknownUsage: 0,
});

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isText = (v: unknown): v is string => typeof v === 'string';
const isEndpoint = (v: unknown): v is RelayEndpoint => RELAY_ENDPOINTS.includes(v as RelayEndpoint);

/**
 * A stored item as the API shows it: the record's known fields only (its keys, expiry and any attribute a later
 * writer adds stay out), or undefined for an item that is not a usage record.
 */
export function toUsageRecord(item: Record<string, unknown>): UsageRecordView | undefined {
  const { requestId, time, keyId, group, endpoint, requestedModel, status, durationMs, stream, clientGone } = item;
  if (!isText(requestId) || !isText(time) || !isText(keyId) || !isText(group) || !isText(requestedModel)) return;
  if (!isEndpoint(endpoint) || !Number.isInteger(status) || !isNumber(durationMs)) return;
  const attempts = Array.isArray(item.attempts)
    ? item.attempts.flatMap((a: Record<string, unknown>) =>
        a !== null && typeof a === 'object' && isText(a.channelId) && Number.isInteger(a.status)
          ? [
              {
                channelId: a.channelId,
                status: a.status as number,
                ...(isText(a.errorClass) ? { errorClass: a.errorClass } : {}),
              },
            ]
          : [],
      )
    : [];
  const record: UsageRecordView = {
    requestId,
    time,
    keyId,
    group,
    endpoint,
    requestedModel,
    attempts,
    status: status as number,
    durationMs,
    stream: stream === true,
    clientGone: clientGone === true,
  };
  if (isText(item.upstreamModel)) record.upstreamModel = item.upstreamModel;
  if (isText(item.channelId)) record.channelId = item.channelId;
  if (isNumber(item.cost)) record.cost = item.cost;
  for (const field of ['promptTokens', 'completionTokens', 'totalTokens'] as const) {
    if (isCount(item[field])) record[field] = item[field];
  }
  if (isNumber(item.firstByteMs)) record.firstByteMs = item.firstByteMs;
  return record;
}

function matches(record: UsageRecordView, query: UsageQuery): boolean {
  if (query.keyId !== undefined && record.keyId !== query.keyId) return false;
  if (query.model !== undefined && record.requestedModel !== query.model && record.upstreamModel !== query.model) {
    return false;
  }
  if (
    query.channelId !== undefined &&
    record.channelId !== query.channelId &&
    !record.attempts.some((a) => a.channelId === query.channelId)
  ) {
    return false;
  }
  return true;
}

function add(figures: UsageFigures, record: UsageRecordView): void {
  figures.requests += 1;
  if (record.status >= 400) figures.errors += 1;
  if (record.attempts.length > 1) figures.failovers += 1;
  figures.promptTokens += record.promptTokens ?? 0;
  figures.completionTokens += record.completionTokens ?? 0;
  figures.totalTokens += record.totalTokens ?? (record.promptTokens ?? 0) + (record.completionTokens ?? 0);
  if (record.status < 400 && record.totalTokens === undefined && record.promptTokens === undefined) {
    figures.unknownUsage += 1;
  }
}

/** Most requests first, then by name: the same order on every call. */
function topRows<T extends { requests: number }>(rows: Iterable<T>, name: (row: T) => string): T[] {
  return [...rows]
    .sort((a, b) => b.requests - a.requests || (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0))
    .slice(0, MAX_GROUP_ROWS);
}

/** The UTC days of the period, newest first (`YYYY-MM-DD`). */
export function daysNewestFirst(from: Date, to: Date): string[] {
  const days: string[] = [];
  // Epoch milliseconds have no leap seconds: a UTC day starts at a multiple of DAY_MS (for any year, unlike Date.UTC).
  const first = Math.floor(from.getTime() / DAY_MS) * DAY_MS;
  for (let day = Math.floor(to.getTime() / DAY_MS) * DAY_MS; day >= first; day -= DAY_MS) {
    days.push(new Date(day).toISOString().slice(0, 10));
  }
  return days;
}

/**
 * Usage of a period: one Query per UTC day, newest first, each in its time range; records filtered in memory and
 * added up; only the asked page of records is kept. Bounded: at most MAX_RECORDS_READ records are read (then
 * `truncated`), memory is the page plus one row per channel and model seen.
 */
export async function readUsage(query: UsageQuery, deps: UsageDeps): Promise<UsageReport> {
  const range = { fromSk: query.from.toISOString(), toSk: `${query.to.toISOString()}#${HIGHEST}` };
  const offset = (query.page - 1) * query.perPage;
  const records: UsageRecordView[] = [];
  const totals = noFigures();
  const byChannel = new Map<string | null, ChannelRow>();
  const byModel = new Map<string, ModelRow>();
  const channelRow = (channelId: string | null): ChannelRow => {
    let row = byChannel.get(channelId);
    if (row === undefined) {
      row = { channelId, ...noFigures(), attempts: 0, failedAttempts: 0 };
      byChannel.set(channelId, row);
    }
    return row;
  };
  let read = 0;
  let matched = 0;
  let malformed = 0;
  let truncated = false;
  const days = daysNewestFirst(query.from, query.to);
  for (const [i, day] of days.entries()) {
    let start: Record<string, unknown> | undefined;
    do {
      const page = await deps.store.queryDay(day, range, Math.min(QUERY_PAGE, MAX_RECORDS_READ - read), start);
      start = page.next;
      for (const item of page.items) {
        read += 1;
        const record = toUsageRecord(item);
        if (record === undefined) {
          malformed += 1;
          continue;
        }
        if (!matches(record, query)) continue;
        if (matched >= offset && records.length < query.perPage) records.push(record);
        matched += 1;
        add(totals, record);
        add(channelRow(record.channelId ?? null), record);
        // A channel that only failed has a row of no requests that still shows its failed attempts.
        for (const attempt of record.attempts) {
          const row = channelRow(attempt.channelId);
          row.attempts += 1;
          if (attempt.status === 0 || attempt.status >= 400) row.failedAttempts += 1;
        }
        let model = byModel.get(record.requestedModel);
        if (model === undefined) {
          model = { model: record.requestedModel, ...noFigures() };
          byModel.set(record.requestedModel, model);
        }
        add(model, record);
      }
    } while (start !== undefined && read < MAX_RECORDS_READ);
    if (read >= MAX_RECORDS_READ && (start !== undefined || i < days.length - 1)) {
      truncated = true;
      break;
    }
  }
  if (malformed > 0) deps.logger.warn('Usage items that are not usage records were skipped', { malformed });
  deps.logger.info('Usage read', { days: days.length, read, matched, truncated });
  const channelRows = topRows(byChannel.values(), (row) => row.channelId ?? '');
  const ids = channelRows.flatMap((row) => (row.channelId === null ? [] : [row.channelId]));
  const labels = deps.channelLabels && ids.length > 0 ? await deps.channelLabels(ids) : new Map();
  for (const row of channelRows) {
    const label = row.channelId === null ? undefined : labels.get(row.channelId);
    if (label !== undefined) Object.assign(row, { name: String(label.name), provider: String(label.provider) });
  }
  return {
    from: query.from.toISOString(),
    to: query.to.toISOString(),
    records,
    total: matched,
    totals,
    byChannel: channelRows,
    byModel: topRows(byModel.values(), (row) => row.model),
    truncated,
  };
}
