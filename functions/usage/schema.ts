import { proxyQuery } from '#shared/envelopes/proxy';
import { ProxyApiError } from '#shared/errors';
import { singleQueryValues } from '#shared/query-parameters';
import * as z from '#shared/zod';

export const DEFAULT_PER_PAGE = 20;
export const MAX_PER_PAGE = 100;
/** The longest period one call reads. */
export const MAX_RANGE_DAYS = 31;
/** The period read when `from` is not given: the day up to `to`. */
export const DEFAULT_RANGE_MS = 24 * 60 * 60 * 1000;
const MAX_FILTER_CHARS = 256;

// Epoch seconds, or ISO 8601: a date (UTC midnight), or a date and time with an optional zone (UTC when none).
const EPOCH_SECONDS = /^\d{1,11}$/;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?)?$/;

/** A time parameter as a Date; undefined for an empty value; NaN's Date for anything unreadable. */
export function parseTime(value: string): Date | undefined {
  if (value === '') return undefined;
  if (EPOCH_SECONDS.test(value)) return new Date(Number(value) * 1000);
  const iso = ISO_TIME.exec(value);
  if (!iso) return new Date(Number.NaN);
  return new Date(iso[1] !== undefined && iso[4] === undefined ? `${value}Z` : value);
}

const time = (name: string) =>
  z
    .optional(
      z.pipe(
        z
          .string()
          .check(
            z.refine(
              (v) => !Number.isNaN(parseTime(v)?.getTime() ?? 0),
              `${name} must be an ISO 8601 time (2026-11-27 or 2026-11-27T10:00:00Z) or epoch seconds`,
            ),
          ),
        z.transform(parseTime),
      ),
    )
    .register(z.globalRegistry, {
      description: `ISO 8601 (a date is UTC midnight; a time without zone is UTC) or epoch seconds${
        name === 'to' ? '; default now' : '; default 24 hours before `to`'
      }`,
    });

const wholeNumber = (name: string, max: number, description: string) => {
  const message = `${name} must be a whole number from 1${max === MAX_PER_PAGE ? ` to ${max}` : ''}`;
  return z
    .optional(
      z.pipe(
        z.string().check(
          z.regex(/^\d{0,16}$/, message),
          z.refine((v) => v === '' || (Number(v) >= 1 && Number(v) <= max), message),
        ),
        z.transform((v) => (v === '' ? undefined : Number(v))),
      ),
    )
    .register(z.globalRegistry, { description });
};

const filter = (name: string, description: string) =>
  z
    .optional(
      z.pipe(
        z
          .string()
          .check(
            z.refine((v) => v.length <= MAX_FILTER_CHARS, `${name} must be at most ${MAX_FILTER_CHARS} characters`),
          ),
        z.transform((v) => (v === '' ? undefined : v)),
      ),
    )
    .register(z.globalRegistry, { description });

/** The usage call's query parameters as strings, as API Gateway hands them over; an empty value is "not given". */
export const usageQuerySchema = z.object({
  from: time('from'),
  to: time('to'),
  keyId: filter('keyId', 'Exact relay key id'),
  model: filter('model', 'Exact model name, requested or sent upstream'),
  channelId: filter('channelId', 'Exact channel id: the channel that answered or any channel attempted'),
  page: wholeNumber('page', Number.MAX_SAFE_INTEGER, 'From 1 (default 1)'),
  per_page: wholeNumber('per_page', MAX_PER_PAGE, `From 1 to ${MAX_PER_PAGE} (default ${DEFAULT_PER_PAGE})`),
});

/** The query parameters the usage call takes; any other is a 400. */
export const USAGE_PARAMETERS = Object.keys(usageQuerySchema.shape);

/** A validated usage request. */
export interface UsageQuery {
  from: Date;
  to: Date;
  keyId?: string;
  model?: string;
  channelId?: string;
  page: number;
  perPage: number;
}

/** Validates the query string of `GET /api/usage`: unknown or repeated parameters, values, then the period. */
export function parseUsageQuery(
  parameters: Readonly<Record<string, readonly string[] | undefined>> | null,
  now: Date,
): UsageQuery {
  const single = singleQueryValues(parameters, USAGE_PARAMETERS, 'the usage call');
  const parsed = proxyQuery(single, usageQuerySchema);
  const to = parsed.to ?? now;
  const from = parsed.from ?? new Date(to.getTime() - DEFAULT_RANGE_MS);
  if (from.getTime() > to.getTime()) throw new ProxyApiError(400, 'from must not be after to');
  if (to.getTime() - from.getTime() > MAX_RANGE_DAYS * 24 * 60 * 60 * 1000) {
    throw new ProxyApiError(400, `The period from..to must be at most ${MAX_RANGE_DAYS} days`);
  }
  const query: UsageQuery = { from, to, page: parsed.page ?? 1, perPage: parsed.per_page ?? DEFAULT_PER_PAGE };
  if (parsed.keyId !== undefined) query.keyId = parsed.keyId;
  if (parsed.model !== undefined) query.model = parsed.model;
  if (parsed.channelId !== undefined) query.channelId = parsed.channelId;
  return query;
}
