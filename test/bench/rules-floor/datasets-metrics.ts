/** Rules floor of delete-dataset: the other knowledge-base functions' (./datasets.ts) plus Powertools Metrics. */
import { createMetrics } from '#shared/metrics';

export * from './datasets.ts';

export const metrics = createMetrics();
