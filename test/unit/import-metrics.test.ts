import { Metrics } from '@aws-lambda-powertools/metrics';
import { describe, expect, it } from 'vitest';
import { measureImport } from '#functions/import-legacygw/metrics';
import type { ImportReport } from '#functions/import-legacygw/report';
import { ChannelsNotStoredError, DeadlineExceededError, ProxyApiError } from '#shared/errors';
import { importReport } from '#test/support/import-report';

const REPORT: ImportReport = importReport(20, {
  source: { host: 'db.internal', port: 3306, database: 'legacy', rows: 20, kind: 'oneapi' },
  rows: { imported: 18, skipped: 2 },
  channels: { created: 21, updated: 3, unchanged: 4, edited: 0 },
});

/** A Metrics that only stores: what was recorded is read back through its EMF serialization. */
function recorder(): { metrics: Metrics; recorded(): Record<string, unknown> } {
  const metrics = new Metrics({ namespace: 'Test', serviceName: 'test' });
  return {
    metrics,
    recorded() {
      if (!metrics.hasStoredMetrics()) return {};
      const emf = metrics.serializeMetrics() as unknown as Record<string, unknown> & {
        _aws: { CloudWatchMetrics: { Metrics: { Name: string }[] }[] };
      };
      const names = emf._aws.CloudWatchMetrics[0]?.Metrics.map((m) => m.Name) ?? [];
      return Object.fromEntries(names.map((name) => [name, emf[name]]));
    },
  };
}

/** A clock that reads `start`, then `end`. */
const clock = (start: number, end: number) => {
  const readings = [start, end];
  return () => readings.shift() ?? end;
};

describe('import metrics', () => {
  it('records the row and channel counts of a completed import and its duration in whole ms', async () => {
    const { metrics, recorded } = recorder();

    const report = await measureImport(metrics, false, async () => REPORT, clock(1000, 3345.6));

    expect(report).toBe(REPORT);
    expect(recorded()).toEqual({
      ImportRowsImported: 18,
      ImportRowsSkipped: 2,
      ChannelsCreated: 21,
      ChannelsUpdated: 3,
      ChannelsUnchanged: 4,
      ImportDuration: 2346,
    });
  });

  it('records nothing for a dry run, which stores nothing', async () => {
    const { metrics, recorded } = recorder();

    await measureImport(metrics, true, async () => ({ ...REPORT, dryRun: true }));

    expect(recorded()).toEqual({});
  });

  it.each([
    ['the deadline passed (504)', new DeadlineExceededError(100)],
    ['channels could not be written (500)', new ChannelsNotStoredError(100)],
    ['the database is unreachable (502)', new ProxyApiError(502, 'The legacy database is unreachable')],
    ['something unexpected broke', new TypeError('x is undefined')],
  ])('records one failed import and rethrows when %s', async (_, error) => {
    const { metrics, recorded } = recorder();

    const outcome = measureImport(metrics, false, async () => Promise.reject(error));

    await expect(outcome).rejects.toBe(error);
    expect(recorded()).toEqual({ ImportsFailed: 1 });
  });

  it.each([
    ['the DSN is invalid', new ProxyApiError(400, 'The DSN must look like user:password@tcp(host:port)/database')],
    ['the host is refused', new ProxyApiError(400, 'The database host is not allowed')],
  ])("records nothing and rethrows when %s: the caller's to fix", async (_, error) => {
    const { metrics, recorded } = recorder();

    const outcome = measureImport(metrics, false, async () => Promise.reject(error));

    await expect(outcome).rejects.toBe(error);
    expect(recorded()).toEqual({});
  });
});
