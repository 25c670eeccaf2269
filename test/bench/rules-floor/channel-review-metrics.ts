/** Rules floor of update-channel: the other channel review functions' (./channel-review.ts) plus Powertools Metrics. */
import { createMetrics } from '#shared/metrics';

export * from './channel-review.ts';

export const metrics = createMetrics();
