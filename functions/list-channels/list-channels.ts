import type { Logger } from '@aws-lambda-powertools/logger';
import { type ChannelView, toChannelView } from '#shared/channel-view';
import { ProxyApiError } from '#shared/errors';
import type { ChannelFilter, ChannelListEntry, ChannelReviewStore } from '#shared/repositories/channels';

/** The query parameters the list takes; any other is a 400, so a filter is never silently ignored. */
export const LIST_PARAMETERS = ['page', 'per_page', 'provider', 'status', 'name', 'legacy_id', 'keyword'] as const;
type ListParameter = (typeof LIST_PARAMETERS)[number];

export const DEFAULT_PER_PAGE = 10;
export const MAX_PER_PAGE = 100;
export const MAX_KEYWORD_LENGTH = 100;

/** A validated list request. */
export interface ListQuery {
  page: number;
  perPage: number;
  filter: ChannelFilter;
  /** Lower case; matched as a substring of name, baseUrl, provider or any model. */
  keyword?: string;
}

export interface ListDeps {
  repo: Pick<ChannelReviewStore, 'scanEntries' | 'getMany'>;
  logger: Pick<Logger, 'info'>;
}

const WHOLE_NUMBER = /^\d{1,16}$/;

/**
 * Validates the query string of `GET /api/channels/` (API Gateway's multi-value map, so a repeated parameter is
 * seen). An empty value means "no filter" (or the default for page and per_page). Messages name the parameter and
 * never repeat a value.
 */
export function parseListQuery(parameters: Readonly<Record<string, readonly string[] | undefined>> | null): ListQuery {
  const single: Partial<Record<ListParameter, string>> = {};
  for (const [name, values] of Object.entries(parameters ?? {})) {
    if (!(LIST_PARAMETERS as readonly string[]).includes(name)) {
      throw new ProxyApiError(
        400,
        `Unknown query parameter ${JSON.stringify(name.slice(0, 40))}; the list takes ${LIST_PARAMETERS.join(', ')}`,
      );
    }
    if ((values?.length ?? 0) > 1) throw new ProxyApiError(400, `Query parameter ${name} is given more than once`);
    const value = values?.[0] ?? '';
    if (value !== '') single[name as ListParameter] = value;
  }
  const query: ListQuery = {
    page: wholeNumber(single.page, 'page', 1, Number.MAX_SAFE_INTEGER) ?? 1,
    perPage: wholeNumber(single.per_page, 'per_page', 1, MAX_PER_PAGE) ?? DEFAULT_PER_PAGE,
    filter: {},
  };
  if (single.provider !== undefined) query.filter.provider = single.provider;
  if (single.name !== undefined) query.filter.name = single.name;
  if (single.status !== undefined) {
    if (single.status !== 'enabled' && single.status !== 'disabled') {
      throw new ProxyApiError(400, 'status must be "enabled" or "disabled"');
    }
    query.filter.status = single.status;
  }
  const legacyId = wholeNumber(single.legacy_id, 'legacy_id', 0, Number.MAX_SAFE_INTEGER);
  if (legacyId !== undefined) query.filter.legacyId = legacyId;
  if (single.keyword !== undefined) {
    if ([...single.keyword].length > MAX_KEYWORD_LENGTH) {
      throw new ProxyApiError(400, `keyword must be at most ${MAX_KEYWORD_LENGTH} characters`);
    }
    query.keyword = single.keyword.toLowerCase();
  }
  return query;
}

function wholeNumber(value: string | undefined, name: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = WHOLE_NUMBER.test(value) ? Number(value) : Number.NaN;
  if (!(n >= min && n <= max)) {
    const range = max === MAX_PER_PAGE ? `from ${min} to ${max}` : `from ${min}`;
    throw new ProxyApiError(400, `${name} must be a whole number ${range}`);
  }
  return n;
}

function matchesKeyword(entry: ChannelListEntry, keyword: string): boolean {
  const fields = [entry.name, entry.baseUrl, entry.provider, ...(Array.isArray(entry.models) ? entry.models : [])];
  return fields.some((field) => typeof field === 'string' && field.toLowerCase().includes(keyword));
}

// Plain code-unit order: the same on every machine, whatever its locale.
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const byProviderNameId = (a: ChannelListEntry, b: ChannelListEntry) =>
  compare(String(a.provider), String(b.provider)) || compare(String(a.name), String(b.name)) || compare(a.id, b.id);

/**
 * One page of channels and the total that match. The exact filters run in DynamoDB (a Scan with a
 * FilterExpression); the Scan returns only id, provider and name (plus baseUrl and models for a keyword), which
 * are filtered by keyword and ordered in memory; then only the page's channels are read whole, so no more than
 * `perPage` keys are ever held. Cost: the whole table is read on every call, O(n log n) CPU and O(matches)
 * memory (docs/channel-review-api.md).
 */
export async function listChannels(
  query: ListQuery,
  deps: ListDeps,
): Promise<{ channels: ChannelView[]; total: number }> {
  const { keyword } = query;
  const scanned = await deps.repo.scanEntries(query.filter, { forKeyword: keyword !== undefined });
  const matching = keyword === undefined ? scanned : scanned.filter((entry) => matchesKeyword(entry, keyword));
  matching.sort(byProviderNameId);
  const start = (query.page - 1) * query.perPage;
  const ids = start < matching.length ? matching.slice(start, start + query.perPage).map((e) => e.id) : [];
  const found = ids.length > 0 ? await deps.repo.getMany(ids) : new Map();
  // A channel deleted between the scan and this read is left out of the page rather than shown half-known.
  const channels = ids.flatMap((id) => {
    const channel = found.get(id);
    return channel === undefined ? [] : [toChannelView(channel)];
  });
  deps.logger.info('Channels listed', {
    page: query.page,
    perPage: query.perPage,
    filters: Object.keys(query.filter).concat(keyword === undefined ? [] : ['keyword']),
    scanned: scanned.length,
    total: matching.length,
    returned: channels.length,
  });
  return { channels, total: matching.length };
}
