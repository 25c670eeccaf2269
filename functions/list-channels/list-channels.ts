import type { Logger } from '@aws-lambda-powertools/logger';
import { type ChannelView, toChannelView } from '#shared/channel-view';
import { proxyQuery } from '#shared/envelopes/proxy';
import { singleQueryValues } from '#shared/query-parameters';
import type { ChannelFilter, ChannelListEntry, ChannelReviewStore } from '#shared/repositories/channels';
import { withinChars } from '#shared/text';
import * as z from '#shared/zod';
import { boundPage } from './page-budget.ts';

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
  /** A group the channel serves (channelGroups). */
  group?: string;
}

export interface ListDeps {
  repo: Pick<ChannelReviewStore, 'scanEntries' | 'getMany'>;
  logger: Pick<Logger, 'info'>;
}

const wholeNumber = (name: string, min: number, max: number) => {
  const message = `${name} must be a whole number ${max === MAX_PER_PAGE ? `from ${min} to ${max}` : `from ${min}`}`;
  return z.optional(
    z.pipe(
      z.string().check(
        z.regex(/^\d{0,16}$/, message),
        z.refine((v) => v === '' || (Number(v) >= min && Number(v) <= max), message),
      ),
      z.transform((v) => (v === '' ? undefined : Number(v))),
    ),
  );
};
const filterText = () =>
  z.optional(
    z.pipe(
      z.string(),
      z.transform((v) => (v === '' ? undefined : v)),
    ),
  );

/**
 * The list's query parameters as strings, as API Gateway hands them over; an empty value means "no filter" (or
 * the default for page and per_page). Messages name the parameter and never repeat a value.
 */
export const listQuerySchema = z.object({
  page: wholeNumber('page', 1, Number.MAX_SAFE_INTEGER).register(z.globalRegistry, {
    description: 'From 1 (default 1)',
  }),
  per_page: wholeNumber('per_page', 1, MAX_PER_PAGE).register(z.globalRegistry, {
    description: 'From 1 to 100 (default 10)',
  }),
  // Provider slugs are lower case: any case finds them.
  provider: z
    .optional(
      z.pipe(
        z.string(),
        z.transform((v) => (v === '' ? undefined : v.toLowerCase())),
      ),
    )
    .register(z.globalRegistry, { description: 'Provider slug, in any case' }),
  status: z.optional(
    z.pipe(
      z.enum(['', 'enabled', 'disabled', 'auto-disabled'], {
        error: 'status must be "enabled", "disabled" or "auto-disabled"',
      }),
      z.transform((v) => (v === '' ? undefined : v)),
    ),
  ),
  name: filterText().register(z.globalRegistry, { description: 'Exact name' }),
  legacy_id: wholeNumber('legacy_id', 0, Number.MAX_SAFE_INTEGER).register(z.globalRegistry, {
    description: 'Exact legacy row id',
  }),
  group: z
    .optional(
      z.pipe(
        z
          .string()
          .check(z.refine(withinChars(MAX_KEYWORD_LENGTH), `group must be at most ${MAX_KEYWORD_LENGTH} characters`)),
        z.transform((v) => (v.trim() === '' ? undefined : v.trim())),
      ),
    )
    .register(z.globalRegistry, {
      description: 'A group the channel serves (its `settings.groups`; a channel without groups serves `default`)',
    }),
  keyword: z
    .optional(
      z.pipe(
        z
          .string()
          .check(z.refine(withinChars(MAX_KEYWORD_LENGTH), `keyword must be at most ${MAX_KEYWORD_LENGTH} characters`)),
        z.transform((v) => (v === '' ? undefined : v.toLowerCase())),
      ),
    )
    .register(z.globalRegistry, { description: 'Case-insensitive substring of name, baseUrl, provider or any model' }),
});

/** The query parameters the list takes; any other is a 400, so a filter is never silently ignored. */
export const LIST_PARAMETERS = Object.keys(listQuerySchema.shape) as readonly (keyof typeof listQuerySchema.shape)[];

/**
 * Validates the query string of `GET /api/channels/` (API Gateway's multi-value map, so a repeated parameter is
 * seen): an unknown or repeated parameter is a 400 naming it, then each value follows `listQuerySchema`.
 */
export function parseListQuery(parameters: Readonly<Record<string, readonly string[] | undefined>> | null): ListQuery {
  const single = singleQueryValues(parameters, LIST_PARAMETERS, 'the list');
  const { page, per_page, provider, status, name, legacy_id, keyword, group } = proxyQuery(single, listQuerySchema);
  const filter: ChannelFilter = {};
  if (provider !== undefined) filter.provider = provider;
  if (name !== undefined) filter.name = name;
  if (status !== undefined) filter.status = status;
  if (legacy_id !== undefined) filter.legacyId = legacy_id;
  return {
    page: page ?? 1,
    perPage: per_page ?? DEFAULT_PER_PAGE,
    filter,
    ...(keyword === undefined ? {} : { keyword }),
    ...(group === undefined ? {} : { group }),
  };
}

/** The groups a channel serves: its `settings.groups`, or `default` as the legacy gateway reads an empty group. */
export function channelGroups(settings: { groups?: unknown } | undefined): string[] {
  const groups = Array.isArray(settings?.groups) ? settings.groups.filter((g) => typeof g === 'string') : [];
  return groups.length > 0 ? groups : ['default'];
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
  const { group } = query;
  const scanned = await deps.repo.scanEntries(query.filter, {
    forKeyword: keyword !== undefined,
    forGroup: group !== undefined,
  });
  const matching = scanned.filter(
    (entry) =>
      (keyword === undefined || matchesKeyword(entry, keyword)) &&
      (group === undefined || channelGroups(entry.settings).includes(group)),
  );
  matching.sort(byProviderNameId);
  const start = (query.page - 1) * query.perPage;
  const ids = start < matching.length ? matching.slice(start, start + query.perPage).map((e) => e.id) : [];
  const found = ids.length > 0 ? await deps.repo.getMany(ids) : new Map();
  // A channel deleted between the scan and this read is left out of the page rather than shown half-known.
  const whole = ids.flatMap((id) => {
    const channel = found.get(id);
    return channel === undefined ? [] : [toChannelView(channel)];
  });
  // Within Lambda's response limit whatever the channels hold; shortened items say so and the detail has them whole.
  const channels = boundPage(whole);
  deps.logger.info('Channels listed', {
    page: query.page,
    perPage: query.perPage,
    filters: Object.keys(query.filter).concat(
      keyword === undefined ? [] : ['keyword'],
      group === undefined ? [] : ['group'],
    ),
    scanned: scanned.length,
    total: matching.length,
    returned: channels.length,
    abbreviated: channels.filter((channel) => channel.abbreviated !== undefined).length,
  });
  return { channels, total: matching.length };
}
