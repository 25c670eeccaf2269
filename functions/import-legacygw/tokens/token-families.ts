import { relayKeyBody } from '#shared/relay-keys';
import type { FamilyKind, RowValues } from '../families/family.ts';

/*
 * How each family writes its `tokens` table (docs/relay.md, "Keys carried over from the legacy gateway"), read from its
 * GORM model:
 * - One API `model/token.go` at 0b8ccb94eb8c0b69e81ab060ffb60ad3b667387d: key char(48), status 1..4, expired_time -1 for
 *   never, remain_quota, unlimited_quota, used_quota, `models` and `subnet` comma-separated, no group (the user's), no
 *   soft delete.
 * - New API `model/token.go` at ec1c642bf82adc412bb378f8d781141633b34b5d: the same, plus `group` (empty: the user's),
 *   `model_limits_enabled` + `model_limits` comma-separated, `allow_ips` one per line, `deleted_at`.
 * - One Hub `model/token.go` at 387f8bf16ed0d601fdede7ade378adb10aa1a35a and Done Hub's at
 *   585cd44072d27c1a942087713d1c59d6a34a2111 (its fork, the same columns): key varchar(59) (48 characters, or signed:
 *   common/user-token.go), `group`, `backup_group` (tried when the first group has no channel: relay/common.go),
 *   `setting` JSON (`limits.limit_model_setting` and `limits.limits_ips_setting`, each `enabled` with its list),
 *   `deleted_at`. One Hub before `group` (dd3cd40a) has none of these: its tokens take their user's group.
 * Every family refuses a token whose user is disabled (`users.status` other than 1) or gone (middleware/auth.go).
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

/** A token's groups (in the order the relay tries them), model allow-list and IP allow-list, as its family reads them. */
interface TokenLimits {
  readonly groups: string[];
  readonly models: string[] | undefined;
  readonly ips: string[] | undefined;
}

/** The `setting` JSON of One Hub's and Done Hub's tokens: each limit applies when enabled and not empty. */
function hubSettingLimits(json: string): { models?: string[]; ips?: string[] } {
  let setting: unknown;
  try {
    setting = JSON.parse(json);
  } catch {
    return {};
  }
  const limits = (setting as { limits?: Record<string, { enabled?: unknown; models?: unknown; whitelist?: unknown }> })
    ?.limits;
  const enabledList = (entry: { enabled?: unknown } | undefined, field: 'models' | 'whitelist') => {
    const values = (entry as Record<string, unknown> | undefined)?.[field];
    if (entry?.enabled !== true || !Array.isArray(values)) return undefined;
    return list(values.filter((v): v is string => typeof v === 'string').join('\n'), /\n/);
  };
  const models = enabledList(limits?.limit_model_setting, 'models');
  const ips = enabledList(limits?.limits_ips_setting, 'whitelist');
  return { ...(models ? { models } : {}), ...(ips ? { ips } : {}) };
}

const FAMILY_LIMITS: Readonly<Record<FamilyKind, (row: RowValues, userGroup: string) => TokenLimits>> = {
  oneapi: (row, userGroup) => ({
    groups: [userGroup],
    models: list(text(row, 'models'), /,/),
    ips: list(text(row, 'subnet'), /,/),
  }),
  newapi: (row, userGroup) => ({
    groups: [text(row, 'group') || userGroup],
    models: truthy(row, 'model_limits_enabled') ? list(text(row, 'model_limits'), /,/) : undefined,
    ips: list(text(row, 'allow_ips'), /[\n,]/),
  }),
  onehub: hubLimits,
  donehub: hubLimits,
};

// One Hub's GroupDistributor: the token's group, else its backup group, else the user's; the backup group is tried
// next when the first has no channel for the model.
function hubLimits(row: RowValues, userGroup: string): TokenLimits {
  const backup = text(row, 'backup_group');
  const first = text(row, 'group') || backup || userGroup;
  const { models, ips } = hubSettingLimits(text(row, 'setting'));
  return { groups: backup !== '' && backup !== first ? [first, backup] : [first], models, ips };
}

/**
 * The relay key of one `tokens` row of `family`, or why it is skipped. `users` holds each user's group and whether the
 * gateway would let its tokens in (usersOf).
 */
export function readLegacyToken(family: FamilyKind, row: RowValues, users: LegacyUsers): LegacyToken | SkippedToken {
  const legacyId = text(row, 'id') || '(no id)';
  if (text(row, 'deleted_at') !== '') return { legacyId, reason: 'deleted in the legacy gateway' };
  const body = relayKeyBody(text(row, 'key'));
  if (body === undefined) {
    return {
      legacyId,
      reason: 'key is not 48 letters and digits, nor a One Hub or Done Hub signed key (a relay key cannot accept it)',
    };
  }
  const user = users.byId.get(text(row, 'user_id'));
  const statusCode = integer(row, 'status', 1);
  const userRefused = users.known && (user === undefined || !user.enabled);
  const reason =
    statusCode !== 1
      ? (STATUS_REASONS[statusCode] ?? 'disabled-at-source')
      : userRefused
        ? 'disabled-at-source'
        : undefined;
  // The gateways compare `expired_time != -1 && expired_time < now`: only -1 means never.
  const expired = integer(row, 'expired_time', -1);
  const expiresAt = expired === -1 ? null : new Date(Math.max(expired, 0) * 1000).toISOString();
  const limits = FAMILY_LIMITS[family](row, user?.group || 'default');
  const { models, ips } = limits;
  const secret = body;
  return {
    legacyId,
    secret,
    name: text(row, 'name').slice(0, 200) || `legacy token ${legacyId}`,
    status: reason === undefined ? 'enabled' : 'disabled',
    ...(reason === undefined ? {} : { statusReason: reason }),
    expiresAt,
    ...(models ? { models } : {}),
    ...(ips ? { ips } : {}),
    groups: limits.groups,
    remainQuota: integer(row, 'remain_quota', 0),
    usedQuota: integer(row, 'used_quota', 0),
    unlimitedQuota: truthy(row, 'unlimited_quota'),
  };
}

/** The legacy gateway's users as its tokens need them. */
export interface LegacyUsers {
  /** Whether a `users` table was read: without one, every token's user counts as enabled, in group `default`. */
  readonly known: boolean;
  readonly byId: ReadonlyMap<string, { readonly group: string; readonly enabled: boolean }>;
}

/**
 * `users.id` → its group (empty: `default`) and whether it is enabled (status 1, not soft-deleted). `known`: whether a
 * users table was read (default: whether it holds a row; a database source says so itself, having kept only the rows
 * of the tokens' owners).
 */
export function usersOf(users: readonly RowValues[], known = users.length > 0): LegacyUsers {
  return {
    known,
    byId: new Map(
      users.map((u) => [
        text(u, 'id'),
        {
          group: text(u, 'group') || 'default',
          enabled: integer(u, 'status', 1) === 1 && text(u, 'deleted_at') === '',
        },
      ]),
    ),
  };
}

/** The ratios and routing options of the legacy gateway's `options` table (One API's model/option.go keys). */
export interface LegacyOptions {
  readonly modelRatio: Record<string, number>;
  readonly completionRatio: Record<string, number>;
  readonly groupRatio: Record<string, number>;
  /** One API's retries after the first try (attempts = RetryTimes + 1); undefined when not set. */
  readonly retryTimes?: number;
  /** `AutomaticDisableChannelEnabled`: whether channels whose key the upstream rejects are disabled; undefined when not set. */
  readonly autoDisable?: boolean;
  /** Each option read, as imported or ignored (named in the report). */
  readonly names: { imported: string[]; ignored: string[] };
}

const RATIO_OPTIONS = {
  ModelRatio: 'modelRatio',
  CompletionRatio: 'completionRatio',
  GroupRatio: 'groupRatio',
} as const;

/**
 * The routing options the gateways keep in `options` (One API common/config/config.go, New API model/option.go, One Hub
 * and Done Hub common/config/constants.go) that the relay has no counterpart for: named in the report as ignored
 * (docs/relay.md, "Routing options").
 */
const IGNORED_ROUTING_OPTIONS = [
  'AutomaticEnableChannelEnabled',
  'ChannelDisableThreshold',
  'AutomaticDisableKeywords',
  'AutomaticDisableStatusCodes',
  'AutomaticRetryStatusCodes',
  'RetryCooldownSeconds',
] as const;

/** Every `options` key the token import reads; a source keeps only these rows. */
export const OPTION_NAMES: ReadonlySet<string> = new Set([
  ...Object.keys(RATIO_OPTIONS),
  'RetryTimes',
  'AutomaticDisableChannelEnabled',
  ...IGNORED_ROUTING_OPTIONS,
]);

/** The most retries after the first try the relay takes over (RELAY_MAX_ATTEMPTS is at most 10). */
const MAX_RETRY_TIMES = 9;

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
      if (value.trim() !== '' && Number.isSafeInteger(retries) && retries >= 0 && retries <= MAX_RETRY_TIMES) {
        result.retryTimes = retries;
        result.names.imported.push(key);
      } else result.names.ignored.push(key);
    } else if (key === 'AutomaticDisableChannelEnabled') {
      // The gateways read `value == "true"`; anything else is false for them, but is not a value they write.
      const flag = value.trim();
      if (flag === 'true' || flag === 'false') {
        result.autoDisable = flag === 'true';
        result.names.imported.push(key);
      } else result.names.ignored.push(key);
    } else if ((IGNORED_ROUTING_OPTIONS as readonly string[]).includes(key)) {
      result.names.ignored.push(key);
    }
  }
  return result;
}
