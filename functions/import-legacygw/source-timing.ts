/** The timers both database sources (legacy-source.ts, pg-source.ts) run their queries and their close under. */

import type { SourceLimits } from './source.ts';

// Both database sources' timers. Metadata queries are tiny: one that takes longer than this means the server is
// stuck. A query's own timer is the driver-level backstop, ending a little after the deadline, whose abort signal
// fires first. Closing waits this long for the server's goodbye before the socket is destroyed.
export const METADATA_QUERY_TIMEOUT_MS = 10_000;
const DEADLINE_GRACE_MS = 1_000;
export const QUIT_WAIT_MS = 1_000;

/** A query's own timeout: the deadline plus a grace, at most `cap`, at least 1 ms. */
export function queryTimeoutMs(limits: SourceLimits, cap = Number.POSITIVE_INFINITY): number {
  return Math.max(1, Math.min(cap, limits.deadlineAt - limits.now() + DEADLINE_GRACE_MS));
}
