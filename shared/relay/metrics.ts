import type { Metrics } from '@aws-lambda-powertools/metrics';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { UsageRecord } from './contract.ts';

/*
 * The relay's metrics per channel and model (docs/relay.md, "Metrics"), as CloudWatch embedded metric format lines
 * written after each response (no API call, no permission, never on the first byte's path). Dimensions: `service`
 * (Powertools' own), `channel` (the channel id: a keyed hash that reveals nothing about the key) and `model` (the
 * requested name). Values are counts and durations only. The stack's alarm reads RelayChannelErrors' average per
 * channel, i.e. its error rate, with a Metrics Insights query (infra/constructs/monitoring.ts).
 */

/** The relay's metric names (the dashboard and the alarm read them). */
export const RELAY_METRICS = {
  /** 1 per attempt on a channel. */
  requests: 'RelayChannelRequests',
  /** 1 per failed attempt on a channel, 0 per answered one: its average is the channel's error rate. */
  errors: 'RelayChannelErrors',
  /** 1 per attempt after the first of a request (on the channel that was given up). */
  failovers: 'RelayChannelFailovers',
  /** Milliseconds from arrival to the end of the answer, on the channel that answered. */
  latency: 'RelayLatency',
} as const;

/** The dimension names of the per-channel metrics (with Powertools' `service`). */
export const RELAY_METRIC_DIMENSIONS = ['channel', 'model'] as const;

/**
 * Writes one request's metrics: one EMF line per attempt (its channel and the requested model), plus the latency on the
 * line of the channel that answered. Uses the function's Metrics: each line is published at once, which clears its
 * dimensions for the next.
 */
export function recordRelayMetrics(metrics: Metrics, record: UsageRecord): void {
  const model = record.requestedModel || 'unknown';
  record.attempts.forEach((attempt, i) => {
    const failed = attempt.errorClass !== undefined || attempt.status >= 400 || attempt.status === 0;
    metrics.addDimensions({ channel: attempt.channelId, model });
    metrics.addMetric(RELAY_METRICS.requests, MetricUnit.Count, 1);
    metrics.addMetric(RELAY_METRICS.errors, MetricUnit.Count, failed ? 1 : 0);
    if (failed && i < record.attempts.length - 1) metrics.addMetric(RELAY_METRICS.failovers, MetricUnit.Count, 1);
    if (!failed && attempt.channelId === record.channelId) {
      metrics.addMetric(RELAY_METRICS.latency, MetricUnit.Milliseconds, record.durationMs);
    }
    metrics.publishStoredMetrics();
  });
}
