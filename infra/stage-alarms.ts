/**
 * The stack's alarms as stage configuration (infra/stage-config.ts reads them, infra/constructs/monitoring.ts makes
 * them): each alarm's defaults by stage kind, the config file's overrides and their merge.
 */

import * as z from 'zod';
import { ConfigError } from '#shared/errors';
import { metricsNamespace } from '#shared/metrics';
import type { ApiName } from '#shared/routes';

/** When one alarm goes to ALARM: `datapointsToAlarm` of the last `evaluationPeriods` periods reach `threshold`. */
export interface AlarmSpec {
  /** Count, or milliseconds for latency; the alarm fires at or above it. */
  readonly threshold: number;
  readonly periodMinutes: number;
  readonly evaluationPeriods: number;
  readonly datapointsToAlarm: number;
}

/** The alarms of the stack (infra/constructs/monitoring.ts); docs/operations.md says what each means. */
export const COUNT_ALARMS = [
  'apiServerErrors',
  'functionErrors',
  'functionThrottles',
  'authorizerErrors',
  'tableThrottles',
  'tableSystemErrors',
  'relayChannelErrorRate',
] as const;
export type CountAlarm = (typeof COUNT_ALARMS)[number];

export type AlarmSettings = Readonly<Record<CountAlarm, AlarmSpec>> & {
  /** p99 latency per API, in ms: the APIs do very different work (a put vs. an import of thousands of rows). */
  readonly apiLatencyP99: Readonly<Record<ApiName, AlarmSpec>>;
};

/**
 * Defaults by stage kind. A stage that keeps its data (`retainData`, the default) is one people rely on:
 * it pages on the first sign of trouble, since the handlers answer every error they expect (a Lambda
 * error is a crash, timeout or bad configuration) and a throttle or a DynamoDB system error is never
 * normal. A disposable stage tolerates a few before it notifies. The proxy API's p99 alarm fires when
 * imports reach their deadline (LEGACYGW_DEADLINE_MS).
 */
export function defaultAlarms(keepsData: boolean, importDeadlineMs: number): AlarmSettings {
  const count = (kept: number, disposable: number): AlarmSpec => ({
    threshold: keepsData ? kept : disposable,
    periodMinutes: 5,
    evaluationPeriods: 1,
    datapointsToAlarm: 1,
  });
  return {
    apiServerErrors: count(5, 10),
    apiLatencyP99: {
      // A create is one or two DynamoDB calls; 3 s for 15 minutes is far beyond cold starts.
      dataset: {
        threshold: keepsData ? 3_000 : 5_000,
        periodMinutes: 5,
        evaluationPeriods: 3,
        datapointsToAlarm: 3,
      },
      proxy: { threshold: importDeadlineMs, periodMinutes: 5, evaluationPeriods: 3, datapointsToAlarm: 2 },
      // A relayed request lasts as long as the upstream's completion (a long streamed answer takes minutes): the
      // alarm is for a relay that hangs, past the upstreams' own first-byte timeout (docs/relay.md).
      relay: { threshold: 120_000, periodMinutes: 5, evaluationPeriods: 3, datapointsToAlarm: 3 },
    },
    functionErrors: count(1, 5),
    functionThrottles: count(1, 5),
    // The authorizer failing closed locks every caller out, in any stage.
    authorizerErrors: count(1, 1),
    tableThrottles: count(1, 5),
    tableSystemErrors: count(1, 5),
    // The worst channel's share of failed attempts (0-1) over 15 minutes: one bad answer is noise, half of them for a
    // quarter of an hour is a channel to look at (docs/relay.md, "Metrics").
    relayChannelErrorRate: { threshold: 0.5, periodMinutes: 5, evaluationPeriods: 3, datapointsToAlarm: 3 },
  };
}

const alarmOverride = z
  .object({
    threshold: z.number().positive(),
    periodMinutes: z.number().int().min(1).max(1440),
    evaluationPeriods: z.number().int().min(1).max(100),
    datapointsToAlarm: z.number().int().min(1).max(100),
  })
  .partial()
  .strict()
  .optional();

/** The config file's `monitoring`: the metrics namespace, an alarm address, and overrides of each alarm. */
export const monitoringSchema = z
  .object({
    /** CloudWatch namespace of the business metrics; default KbChannelGateway/<stage>. */
    metricsNamespace: z.optional(metricsNamespace),
    /** Subscribed to the alarm topic (the address must confirm the subscription once). */
    alarmEmail: z.email().optional(),
    alarms: z
      .object({
        apiServerErrors: alarmOverride,
        apiLatencyP99: z
          .object({ dataset: alarmOverride, proxy: alarmOverride, relay: alarmOverride })
          .strict()
          .optional(),
        functionErrors: alarmOverride,
        functionThrottles: alarmOverride,
        authorizerErrors: alarmOverride,
        tableThrottles: alarmOverride,
        tableSystemErrors: alarmOverride,
        relayChannelErrorRate: alarmOverride,
      } satisfies Record<CountAlarm | 'apiLatencyP99', z.ZodType>)
      .strict()
      .optional(),
  })
  .strict()
  .default({});

type AlarmOverrides = Partial<Record<CountAlarm, Partial<AlarmSpec>>> & {
  apiLatencyP99?: Partial<Record<ApiName, Partial<AlarmSpec>>>;
};

/** The stage's defaults with the config file's overrides, each alarm checked as a whole. */
export function mergeAlarms(defaults: AlarmSettings, overrides: AlarmOverrides): AlarmSettings {
  const merge = (path: string, base: AlarmSpec, override: Partial<AlarmSpec> | undefined): AlarmSpec => {
    const spec = { ...base, ...override };
    if (spec.datapointsToAlarm > spec.evaluationPeriods) {
      throw new ConfigError(`Stage config ${path}.datapointsToAlarm must be at most its evaluationPeriods`);
    }
    // CloudWatch evaluates at most one day of periods.
    if (spec.periodMinutes * spec.evaluationPeriods > 1440) {
      throw new ConfigError(`Stage config ${path}: periodMinutes x evaluationPeriods must be at most 1440 (one day)`);
    }
    return spec;
  };
  const latency = defaults.apiLatencyP99;
  return {
    ...(Object.fromEntries(
      COUNT_ALARMS.map((kind) => [kind, merge(`monitoring.alarms.${kind}`, defaults[kind], overrides[kind])]),
    ) as Record<CountAlarm, AlarmSpec>),
    apiLatencyP99: Object.fromEntries(
      (Object.keys(latency) as ApiName[]).map((api) => [
        api,
        merge(`monitoring.alarms.apiLatencyP99.${api}`, latency[api], overrides.apiLatencyP99?.[api]),
      ]),
    ) as Record<ApiName, AlarmSpec>,
  };
}
