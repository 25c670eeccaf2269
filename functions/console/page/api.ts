/**
 * The channel proxy API as the page sees it: its wire shapes (the subset the page reads) and one
 * call function that sends the admin key and turns any failure into the API's own `message`.
 */

import type { KeyView } from '../../../shared/key-view-shape.ts';
import type { Settings } from './settings-form.ts';

export type { Settings };

/** A channel as the list and detail calls return it (`key` is already masked by the API). */
export interface Channel {
  id: string;
  provider: string;
  name: string;
  baseUrl: string;
  models: string[];
  key: string;
  status: 'enabled' | 'disabled' | 'auto-disabled';
  /** Why the relay disabled it (auto-disabled only). */
  statusReason?: string;
  statusChangedAt?: string;
  /** Re-enables by the re-test schedule, newest last. */
  statusHistory?: { at: string; status: string; by: string; note: string }[];
  /** The schedule's last re-test while it was auto-disabled. */
  lastRetest?: { at: string; ok: boolean; status: number; message?: string };
  /** Whether the relay can serve its provider; the reason when it cannot. */
  servable?: boolean;
  servableReason?: string;
  editedAt?: string;
  source?: { legacyId?: number };
  /** Secret parts already masked by the API. */
  settings?: Settings;
  /** List items only: fields the list shortened (the detail has them whole). */
  abbreviated?: string[];
}

export interface ChannelPage {
  channels: Channel[];
  total: number;
}

export type ReportItem =
  | { legacyId: number | string; outcome: 'skipped'; reason: string; warnings?: string[] }
  | { legacyId: number | string; outcome: 'imported'; channels: number; warnings: string[] };

/** A (group, model) route the import loses (`imported` 0) or serves with fewer legacy rows than before. */
export interface RouteItem {
  group: string;
  model: string;
  legacy: number;
  imported: number;
}

/** What the import keeps of the legacy gateway's routes. */
export interface RoutesReport {
  total: number;
  kept: number;
  changed: number;
  lost: number;
  items: RouteItem[];
  itemsTruncated: boolean;
  complete: boolean;
  /** A fork's columns that held values the import did not read (a family chosen by the operator). */
  unreadColumns?: string[];
}

/** A stored channel no row of the import produces any more (never deleted by the import). */
export interface StaleItem {
  id: string;
  name: string;
  provider: string;
  status: 'enabled' | 'disabled' | 'auto-disabled';
  legacyId?: number | string;
}

/** The `data` of an import (dry run or real). */
export interface ImportReport {
  dryRun: boolean;
  source: { host: string; port: number; database: string; rows: number; kind?: string };
  rows: { imported: number; skipped: number };
  channels: { created: number; updated: number; unchanged: number; edited?: number };
  items: ReportItem[];
  itemsTruncated: boolean;
  routes: RoutesReport;
  /** Said when the counts alone could mislead (an empty table, a table another gateway's older version could have written). */
  notes?: string[];
  /** Absent when no stored channel is stale. */
  stale?: { count: number; items: StaleItem[]; itemsTruncated: boolean };
  /** The token import's counts, when the call carried the gateway's tokens. */
  tokens?: { read: number; created: number; updated: number; unchanged: number; edited: number; skipped: number };
}

/** The `data` of a channel test. */
export interface ChannelTestResult {
  ok: boolean;
  status: number;
  latencyMs: number;
  model: string;
  message?: string;
}

/** Figures over a set of usage records. */
export interface UsageFigures {
  requests: number;
  errors: number;
  failovers: number;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  unknownUsage: number;
}

/** One usage record (the subset the page shows). */
export interface UsageRecord {
  requestId: string;
  time: string;
  keyId: string;
  requestedModel: string;
  channelId?: string;
  attempts: { channelId: string; status: number }[];
  status: number;
  totalTokens?: number;
  durationMs: number;
  stream: boolean;
}

/** The `data` of GET /api/usage. */
export interface UsageReport {
  from: string;
  to: string;
  records: UsageRecord[];
  total: number;
  totals: UsageFigures;
  byChannel: (UsageFigures & {
    channelId: string | null;
    name?: string;
    provider?: string;
    attempts: number;
    failedAttempts: number;
  })[];
  byModel: (UsageFigures & { model: string })[];
  truncated: boolean;
}

/** What a channel update may change; `key` is write-only. */
export interface ChannelChanges {
  name?: string;
  baseUrl?: string;
  models?: string[];
  status?: Channel['status'];
  key?: string;
  /** Each field replaces the stored one; null removes it. */
  settings?: Record<string, unknown>;
}

/** A failed call: the HTTP status (0 = no answer) and a message fit to show as it is. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export type Call = <T>(method: string, path: string, body?: unknown) => Promise<T>;

/**
 * Where the API's relative paths resolve: the folder that holds the page, whether the page was opened as
 * `…/console` or `…/console/` (the same route; resolved against the latter, `api/channels/` would become
 * `…/console/api/channels/`, which no route serves).
 */
export function apiBase(pageUrl: string): URL {
  const url = new URL(pageUrl);
  url.pathname = url.pathname.replace(/console\/?$/, '');
  url.search = '';
  url.hash = '';
  return url;
}

/**
 * Makes the call function for one admin key. Paths are relative ("api/channels/"), so they resolve
 * under the stage prefix the page was served from (`/prod/console` → `/prod/api/channels/`).
 */
export function apiClient(adminKey: string, fetchFn: typeof fetch = fetch): Call {
  return async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    let response: Response;
    try {
      response = await fetchFn(new URL(path, apiBase(document.baseURI)), {
        method,
        headers: {
          Authorization: `Bearer ${adminKey}`,
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        cache: 'no-store',
        credentials: 'omit',
      });
    } catch {
      throw new ApiError(0, 'The API could not be reached. Check the connection and try again.');
    }
    let payload: { success?: unknown; data?: unknown; message?: unknown } | undefined;
    try {
      payload = await response.json();
    } catch {
      payload = undefined;
    }
    if (response.ok && payload?.success === true) return payload.data as T;
    const message =
      typeof payload?.message === 'string' && payload.message !== ''
        ? payload.message
        : `The API answered with HTTP status ${response.status}.`;
    throw new ApiError(response.status, message);
  };
}

/** A relay key as the key API shows it: `key` is `sk-…<id>`, except in the answer of a create (the whole key, once). */
export type RelayKey = KeyView;

/** The fields of a key a create or an update sends (null removes a limit). */
export interface RelayKeyFields {
  name?: string;
  status?: 'enabled' | 'disabled';
  groups?: string[];
  models?: string[] | null;
  ips?: string[] | null;
  expiresAt?: string | null;
  remainQuota?: number;
  unlimitedQuota?: boolean;
}
