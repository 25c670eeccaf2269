import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigError } from '#shared/errors';
import {
  addMetric,
  BUSINESS_METRICS,
  createMetrics,
  deferredMetrics,
  flushMetrics,
  LOCAL_METRICS_NAMESPACE,
  METRICS_SERVICE,
} from '#shared/metrics';
import { captureOutput } from '#test/support/capture-output';
import { emfRecords } from '#test/support/emf';

/** Records DatasetsCreated = 1 and flushes, returning what that printed. */
const createdAndFlushed = (metrics: ReturnType<typeof createMetrics>) =>
  printed(() => {
    addMetric(metrics, BUSINESS_METRICS.datasetsCreated, 1);
    flushMetrics(metrics);
  });

/** Runs `act` and returns what it printed. */
function printed(act: () => void): string {
  const output = captureOutput();
  try {
    act();
  } finally {
    output.restore();
  }
  return output.text();
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('business metrics', () => {
  it('writes what an invocation recorded as one EMF line in the configured namespace with only the service dimension', () => {
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
    const metrics = createMetrics({ POWERTOOLS_METRICS_NAMESPACE: 'Acme/Test' });

    const text = printed(() => {
      addMetric(metrics, BUSINESS_METRICS.channelsCreated, 21);
      addMetric(metrics, BUSINESS_METRICS.importDuration, 1234);
      flushMetrics(metrics);
    });

    const records = emfRecords(text);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      namespace: 'Acme/Test',
      dimensions: ['service'],
      metrics: {
        ChannelsCreated: { unit: 'Count', value: 21 },
        ImportDuration: { unit: 'Milliseconds', value: 1234 },
      },
    });
    expect(records[0]?.raw.service).toBe(METRICS_SERVICE);
    expect(text.trim().split('\n')).toHaveLength(1);
  });

  it('writes nothing, not even a warning, when the invocation recorded nothing', () => {
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
    const metrics = createMetrics({});

    const text = printed(() => flushMetrics(metrics));

    expect(text).toBe('');
  });

  it('clears what it wrote, so the next invocation starts empty', () => {
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
    const metrics = createMetrics({});

    const first = createdAndFlushed(metrics);
    const second = printed(() => flushMetrics(metrics));

    expect(emfRecords(first)).toHaveLength(1);
    expect(second).toBe('');
  });

  it('uses the local namespace when POWERTOOLS_METRICS_NAMESPACE is unset (npm start)', () => {
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
    const metrics = createMetrics({});

    const text = createdAndFlushed(metrics);

    expect(emfRecords(text)[0]?.namespace).toBe(LOCAL_METRICS_NAMESPACE);
  });

  it('prints nothing while POWERTOOLS_METRICS_DISABLED is true (the test environment)', () => {
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'true');
    const metrics = createMetrics({});

    const text = createdAndFlushed(metrics);

    expect(text).toBe('');
  });

  it.each([
    ['an AWS namespace', 'AWS/Lambda'],
    ['a namespace with a space', 'Kb Gateway'],
  ])('fails at cold start on %s, naming the variable', (_, namespace) => {
    expect(() => createMetrics({ POWERTOOLS_METRICS_NAMESPACE: namespace })).toThrow(ConfigError);
    expect(() => createMetrics({ POWERTOOLS_METRICS_NAMESPACE: namespace })).toThrow(/POWERTOOLS_METRICS_NAMESPACE/);
    // Made on first use, the Metrics' namespace is still checked when the function starts.
    expect(() => deferredMetrics({ POWERTOOLS_METRICS_NAMESPACE: namespace })).toThrow(/POWERTOOLS_METRICS_NAMESPACE/);
  });

  it('made on first use, gives one Metrics per execution environment, in the namespace read at cold start', () => {
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
    const env = { POWERTOOLS_METRICS_NAMESPACE: 'Acme/Deferred' };
    const metrics = deferredMetrics(env);
    env.POWERTOOLS_METRICS_NAMESPACE = 'Acme/Changed';

    const text = createdAndFlushed(metrics());

    expect(metrics()).toBe(metrics());
    expect(emfRecords(text).map((r) => r.namespace)).toEqual(['Acme/Deferred']);
  });

  it('defines a distinct CloudWatch name for every business metric, counts in Count and the duration in Milliseconds', () => {
    const metrics = Object.values(BUSINESS_METRICS);

    expect(new Set(metrics.map((m) => m.name)).size).toBe(metrics.length);
    for (const metric of metrics) {
      expect(metric.unit).toBe(metric === BUSINESS_METRICS.importDuration ? 'Milliseconds' : 'Count');
    }
  });
});
