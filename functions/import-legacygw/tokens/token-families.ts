import type { FamilyKind, RowValues } from '../families/family.ts';

/*
 * How each family writes its `tokens` table (docs/relay.md, "Keys carried over from the legacy gateway"), read from its GORM model:
 * One API `model/token.go` at 0b8ccb94eb8c0b69e81ab060ffb60ad3b667387d (key char(48), status 1..4, expired_time -1 for
 * never, remain_quota, unlimited_quota, used_quota, `models` and `subnet` comma-separated, no group: the user's, no soft
 * delete) and New API `model/token.go` at ec1c642bf82adc412bb378f8d781141633b34b5d (the same, plus `group` (empty: the
 * user's), `model_limits_enabled` + `model_limits` comma-separated, `allow_ips` one per line, `deleted_at`). One Hub
 * (`model/token.go` at dd3cd40ab046c8e26702dd9ccb68d5aeacc660a7: One API's columns without `models`/`subnet`, plus
 * `chat_cache`; the user's group) and Done Hub (its fork) are read through New API's column names: a column a version
 * lacks reads as empty, so such a token takes its user's group and has no model or IP list.
 */

/** One legacy token as the relay key it becomes; `secret` is the key itself: never log, report or answer it. */
export interface LegacyToken {
  readonly legacyId: string;
  readonly secret: string;
  readonly name: string;
  readonly status: 'enabled' | 'disabled';
  readonly statusReason?: 'expired' | 'exhausted' | 'disabled-at-source';
  readonly expiresAt: string | null;
  readonly models?: string[];
  readonly ips?: string[];
  readonly groups: string[];
  readonly remainQuota: number;
  readonly usedQuota: number;
  readonly unlimitedQuota: boolean;
}

/** A token the import leaves out, with the reason (never the key). */
export interface SkippedToken {
  readonly legacyId: string;
  readonly reason: string;
}

const text = (row: RowValues, column: string): string => (row[column] ?? '').trim();
const integer = (row: RowValues, column: string, fallback: number): number => {
  const value = Number(text(row, column));
  return text(row, column) !== '' && Number.isSafeInteger(value) ? value : fallback;
};
const truthy = (row: RowValues, column: string) => ['1', 'true', 't'].includes(text(row, column).toLowerCase());
const list = (value: string, separator: RegExp): string[] | undefined => {
  const items = [
    ...new Set(
      value
        .split(separator)
        .map((v) => v.trim())
        .filter((v) => v !== ''),
    ),
  ];
  return items.length === 0 ? undefined : items;
};

// One API's and New API's token statuses (common/constants.go): 1 enabled, 2 disabled, 3 expired, 4 exhausted.
const STATUS_REASONS: Readonly<Record<number, LegacyToken['statusReason']>> = {
  2: 'disabled-at-source',
  3: 'expired',
  4: 'exhausted',
};

/**
 * The relay key of one `tokens` row of `family`, or why it is skipped. `userGroups` maps a user id to its group
 * (`users.group`, default `default`).
 */
export function readLegacyToken(
  family: FamilyKind,
  row: RowValues,
  userGroups: ReadonlyMap<string, string>,
): LegacyToken | SkippedToken {
  const legacyId = text(row, 'id') || '(no id)';
  if (text(row, 'deleted_at') !== '') return { legacyId, reason: 'deleted in the legacy gateway' };
  const secret = text(row, 'key');
  const body = secret.startsWith('sk-') ? secret.slice(3) : secret;
  if (!/^[A-Za-z0-9]{48}$/.test(body)) {
    return { legacyId, reason: 'key is not 48 letters and digits (a relay key cannot accept it)' };
  }
  const statusCode = integer(row, 'status', 1);
  const reason = statusCode === 1 ? undefined : (STATUS_REASONS[statusCode] ?? 'disabled-at-source');
  const expired = integer(row, 'expired_time', -1);
  const expiresAt = expired === -1 || expired <= 0 ? null : new Date(expired * 1000).toISOString();
  const userGroup = userGroups.get(text(row, 'user_id')) || 'default';
  const newApi = family !== 'oneapi';
  const group = newApi ? text(row, 'group') || userGroup : userGroup;
  const models = newApi
    ? truthy(row, 'model_limits_enabled')
      ? list(text(row, 'model_limits'), /,/)
      : undefined
    : list(text(row, 'models'), /,/);
  const ips = newApi ? list(text(row, 'allow_ips'), /[\n,]/) : list(text(row, 'subnet'), /,/);
  return {
    legacyId,
    secret: body,
    name: text(row, 'name').slice(0, 200) || `legacy token ${legacyId}`,
    status: reason === undefined ? 'enabled' : 'disabled',
    ...(reason === undefined ? {} : { statusReason: reason }),
    expiresAt,
    ...(models ? { models } : {}),
    ...(ips ? { ips } : {}),
    groups: [group],
    remainQuota: integer(row, 'remain_quota', 0),
    usedQuota: integer(row, 'used_quota', 0),
    unlimitedQuota: truthy(row, 'unlimited_quota'),
  };
}

/** `users.id` → `users.group` (empty: `default`). */
export function userGroupsOf(users: readonly RowValues[]): Map<string, string> {
  return new Map(users.map((u) => [text(u, 'id'), text(u, 'group') || 'default']));
}

/** The ratios and routing options of the legacy gateway's `options` table (One API's model/option.go keys). */
export interface LegacyOptions {
  readonly modelRatio: Record<string, number>;
  readonly completionRatio: Record<string, number>;
  readonly groupRatio: Record<string, number>;
  /** One API's retries after the first try (attempts = RetryTimes + 1); undefined when not set. */
  readonly retryTimes?: number;
  /** Each option read, as imported or ignored (named in the report). */
  readonly names: { imported: string[]; ignored: string[] };
}

const RATIO_OPTIONS = {
  ModelRatio: 'modelRatio',
  CompletionRatio: 'completionRatio',
  GroupRatio: 'groupRatio',
} as const;

function numberMap(json: string): Record<string, number> | undefined {
  try {
    const parsed: unknown = JSON.parse(json);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
    const entries = Object.entries(parsed).filter(
      (e): e is [string, number] => typeof e[1] === 'number' && Number.isFinite(e[1]) && e[1] >= 0,
    );
    return Object.fromEntries(entries);
  } catch {
    return undefined;
  }
}

/** Reads the `options` rows (`key`, `value`). */
export function readLegacyOptions(options: readonly RowValues[]): LegacyOptions {
  const result = {
    modelRatio: {},
    completionRatio: {},
    groupRatio: {},
    names: { imported: [] as string[], ignored: [] as string[] },
  } as { -readonly [K in keyof LegacyOptions]: LegacyOptions[K] };
  for (const row of options) {
    const key = text(row, 'key');
    const value = row.value ?? '';
    if (key in RATIO_OPTIONS) {
      const parsed = numberMap(value);
      if (parsed) {
        result[RATIO_OPTIONS[key as keyof typeof RATIO_OPTIONS]] = parsed;
        result.names.imported.push(key);
      } else result.names.ignored.push(key);
    } else if (key === 'RetryTimes') {
      const retries = Number(value.trim());
      if (Number.isSafeInteger(retries) && retries >= 0 && retries <= 10) {
        result.retryTimes = retries;
        result.names.imported.push(key);
      } else result.names.ignored.push(key);
    }
  }
  return result;
}
