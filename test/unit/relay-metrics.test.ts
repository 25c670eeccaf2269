import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMetrics } from '#shared/metrics';
import type { UsageRecord } from '#shared/relay/contract';
import { RELAY_METRICS, recordRelayMetrics } from '#shared/relay/metrics';
import { captureOutput } from '#test/support/capture-output';
import { emfRecords } from '#test/support/emf';

const CHANNEL_A = 'a'.repeat(64);
const CHANNEL_B = 'b'.repeat(64);

const record = (overrides: Partial<UsageRecord> = {}): UsageRecord => ({
  requestId: 'r1',
  time: '2026-11-27T10:00:00.000Z',
  keyId: 'k1',
  group: 'default',
  endpoint: 'chat',
  requestedModel: 'gpt-4o-mini',
  upstreamModel: 'gpt-4o-mini-2024-07-18',
  channelId: CHANNEL_B,
  attempts: [
    { channelId: CHANNEL_A, status: 500, errorClass: 'server' },
    { channelId: CHANNEL_B, status: 200 },
  ],
  status: 200,
  durationMs: 420,
  stream: false,
  clientGone: false,
  ...overrides,
});

afterEach(() => {
  vi.unstubAllEnvs();
});

function emitted(usage: UsageRecord) {
  vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
  const metrics = createMetrics({ POWERTOOLS_METRICS_NAMESPACE: 'Test/Relay' });
  const output = captureOutput();
  try {
    recordRelayMetrics(metrics, usage);
  } finally {
    output.restore();
  }
  return emfRecords(output.text()).map((r) => ({
    dimensions: [...r.dimensions].sort(),
    channel: r.raw.channel,
    model: r.raw.model,
    metrics: Object.fromEntries(Object.entries(r.metrics).map(([name, m]) => [name, m.value])),
  }));
}

describe('relay metrics per channel and model', () => {
  it('counts a request, an error and a failover on the channel given up, and the latency on the one that answered', () => {
    const lines = emitted(record());

    for (const line of lines) {
      expect(line.dimensions).toEqual(['channel', 'model', 'service']);
      expect(line.model).toBe('gpt-4o-mini');
    }
    // One line per attempt.
    expect(lines.map((l) => l.channel)).toEqual([CHANNEL_A, CHANNEL_B]);
    const on = (channel: string) =>
      Object.assign({}, ...lines.filter((l) => l.channel === channel).map((l) => l.metrics));
    expect(on(CHANNEL_A)).toEqual({
      [RELAY_METRICS.requests]: 1,
      [RELAY_METRICS.errors]: 1,
      [RELAY_METRICS.failovers]: 1,
    });
    expect(on(CHANNEL_B)).toEqual({
      [RELAY_METRICS.requests]: 1,
      [RELAY_METRICS.errors]: 0,
      [RELAY_METRICS.latency]: 420,
    });
  });

  it('counts the last failed attempt as an error but not as a failover, and no latency when no channel answered', () => {
    const lines = emitted(
      record({
        channelId: undefined,
        status: 503,
        attempts: [{ channelId: CHANNEL_A, status: 0, errorClass: 'connect' }],
      }),
    );
    const names = lines.flatMap((l) => Object.keys(l.metrics)).sort();

    expect(names).toEqual([RELAY_METRICS.errors, RELAY_METRICS.requests].sort());
    expect(JSON.stringify(lines)).not.toContain('k1');
  });
});
