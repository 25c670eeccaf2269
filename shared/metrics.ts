import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { ENV, loadConfig } from './config.ts';
import * as z from './zod.ts';

/**
 * Business metrics, written by the functions as CloudWatch embedded metric format (EMF) lines on stdout:
 * CloudWatch Logs turns each line into metric data points, so emitting one costs no API call and no
 * permission. docs/operations.md lists them; the stack's dashboard graphs every entry of BUSINESS_METRICS.
 *
 * Every metric carries one dimension, `service` = METRICS_SERVICE, whichever function emits it: each
 * name belongs to one event, so the dashboard finds it without knowing the function. The namespace
 * comes from POWERTOOLS_METRICS_NAMESPACE (set by the stack per stage). Values are counts and
 * durations only: no key, token, DSN, host or id is ever a metric, a dimension or metadata.
 */
export const METRICS_SERVICE = 'kb-channel-gateway';

/** Namespace when POWERTOOLS_METRICS_NAMESPACE is unset (npm start, tests); the stack always sets it. */
export const LOCAL_METRICS_NAMESPACE = 'KbChannelGateway/local';

/** One business metric: its CloudWatch name and unit. */
export interface BusinessMetric {
  readonly name: string;
  readonly unit: (typeof MetricUnit)[keyof typeof MetricUnit];
  /** What one data point means (docs and dashboard). */
  readonly description: string;
}

export const BUSINESS_METRICS = {
  datasetsCreated: {
    name: 'DatasetsCreated',
    unit: MetricUnit.Count,
    description: 'Knowledge bases and folders created (1 per successful create)',
  },
  datasetsDeleted: {
    name: 'DatasetsDeleted',
    unit: MetricUnit.Count,
    description: 'Knowledge bases and folders deleted (the number each successful delete removed)',
  },
  importRowsImported: {
    name: 'ImportRowsImported',
    unit: MetricUnit.Count,
    description: 'Legacy rows imported by a completed import (dry runs excluded)',
  },
  importRowsSkipped: {
    name: 'ImportRowsSkipped',
    unit: MetricUnit.Count,
    description: 'Legacy rows skipped by a completed import (dry runs excluded)',
  },
  channelsCreated: {
    name: 'ChannelsCreated',
    unit: MetricUnit.Count,
    description: 'Channels a completed import stored for the first time',
  },
  channelsUpdated: {
    name: 'ChannelsUpdated',
    unit: MetricUnit.Count,
    description: 'Existing channels a completed import changed (models, name or status)',
  },
  channelsUnchanged: {
    name: 'ChannelsUnchanged',
    unit: MetricUnit.Count,
    description: 'Existing channels a completed import found equal',
  },
  channelsEdited: {
    name: 'ChannelsEdited',
    unit: MetricUnit.Count,
    description: 'Channels changed through the channel review API (the number each successful edit changed)',
  },
  importDuration: {
    name: 'ImportDuration',
    unit: MetricUnit.Milliseconds,
    description: 'Wall time of a completed import, from the parsed request to the report',
  },
  importsFailed: {
    name: 'ImportsFailed',
    unit: MetricUnit.Count,
    description: 'Imports that failed on our side or the database side (answered 5xx: 500, 502, 504)',
  },
} as const satisfies Record<string, BusinessMetric>;

// CloudWatch's namespace alphabet; "AWS/" is reserved for AWS services.
const NAMESPACE = /^(?!AWS\/)[A-Za-z0-9._/#:-]{1,255}$/;

/** Zod check of a metrics namespace, shared by the stage config (synth) and the functions (cold start). */
export const metricsNamespace = /* @__PURE__ */ z.moduleSchema(() =>
  z.string().check(z.regex(NAMESPACE, 'must be 1-255 of A-Z a-z 0-9 . _ / # : - and not start with AWS/')),
);

const metricsEnvSchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.object({
    [ENV.metricsNamespace]: z._default(metricsNamespace, LOCAL_METRICS_NAMESPACE),
  }),
);

/**
 * The function's Metrics, made once at cold start. POWERTOOLS_METRICS_DISABLED=true (the test
 * environment) turns printing off; Powertools reads that variable itself.
 */
export function createMetrics(env: NodeJS.ProcessEnv = process.env): Metrics {
  return deferredMetrics(env)();
}

/**
 * The same Metrics, made on first use: for a function that records its metrics only after its response (the relay,
 * docs/performance.md, "The relay's module load"), the construction leaves the cold start. The namespace is still
 * checked here, at cold start, so a bad one fails naming the variable before any request.
 */
export function deferredMetrics(env: NodeJS.ProcessEnv = process.env): () => Metrics {
  const config = loadConfig(metricsEnvSchema, env);
  let metrics: Metrics | undefined;
  return () => {
    metrics ??= new Metrics({ namespace: config[ENV.metricsNamespace], serviceName: METRICS_SERVICE });
    return metrics;
  };
}

/** Records one data point of a business metric for this invocation (written by flushMetrics). */
export function addMetric(metrics: Metrics, metric: BusinessMetric, value: number): void {
  metrics.addMetric(metric.name, metric.unit, value);
}

/**
 * Writes what this invocation recorded as one EMF line and clears it, so nothing carries over into
 * the next invocation. Call it in `finally`: error paths flush too. Nothing recorded, nothing written
 * (Powertools would otherwise warn on every request that records no metric).
 */
export function flushMetrics(metrics: Metrics): void {
  if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
}
