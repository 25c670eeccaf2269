import type { Metrics } from '@aws-lambda-powertools/metrics';
import { ProxyApiError } from '#shared/errors';
import { addMetric, BUSINESS_METRICS } from '#shared/metrics';
import type { ImportReport } from './report.ts';

/**
 * Runs one import and records its business metrics (flushed by the handler): a completed import
 * records its row and channel counts and its duration; an import that fails with a 5xx (database
 * unreachable, deadline, write failure, anything unexpected) records ImportsFailed. A dry run stores
 * nothing, so it records nothing; a 4xx (bad DSN, refused host, access denied) is the caller's to fix.
 */
export async function measureImport(
  metrics: Metrics,
  dryRun: boolean,
  run: () => Promise<ImportReport>,
  clock: () => number = () => performance.now(),
): Promise<ImportReport> {
  if (dryRun) return run();
  const started = clock();
  let report: ImportReport;
  try {
    report = await run();
  } catch (error) {
    // The same rule as the envelope (shared/envelopes/proxy.ts): only an exposed ProxyApiError answers below 500.
    const answeredBelow500 = error instanceof ProxyApiError && error.exposed && error.httpStatus < 500;
    if (!answeredBelow500) addMetric(metrics, BUSINESS_METRICS.importsFailed, 1);
    throw error;
  }
  addMetric(metrics, BUSINESS_METRICS.importRowsImported, report.rows.imported);
  addMetric(metrics, BUSINESS_METRICS.importRowsSkipped, report.rows.skipped);
  addMetric(metrics, BUSINESS_METRICS.channelsCreated, report.channels.created);
  addMetric(metrics, BUSINESS_METRICS.channelsUpdated, report.channels.updated);
  addMetric(metrics, BUSINESS_METRICS.channelsUnchanged, report.channels.unchanged);
  addMetric(metrics, BUSINESS_METRICS.importDuration, Math.round(clock() - started));
  return report;
}
