/** The deadline of one import (LEGACYGW_DEADLINE_MS), and waiting on what takes no abort signal. */

/** The abort reason at the deadline; turned into DeadlineExceededError with the count written so far. */
class DeadlineReached extends Error {
  constructor() {
    super('The import deadline passed');
    this.name = 'DeadlineReached';
  }
}

/** The deadline of one import: a signal that aborts at it, and the instant as epoch milliseconds. */
export interface Deadline {
  readonly signal: AbortSignal;
  readonly at: number;
  /** Aborts the signal now when the clock is past `at` (its timer may not have run yet), then throws its reason. */
  check(): void;
  clear(): void;
}

/** Starts an import's deadline clock. */
export function startDeadline(deps: { config: { deadlineMs: number }; now: () => Date }): Deadline {
  const controller = new AbortController();
  const at = deps.now().getTime() + deps.config.deadlineMs;
  const timer = setTimeout(() => controller.abort(new DeadlineReached()), deps.config.deadlineMs);
  const check = () => {
    if (!controller.signal.aborted && deps.now().getTime() >= at) controller.abort(new DeadlineReached());
    controller.signal.throwIfAborted();
  };
  return { signal: controller.signal, at, check, clear: () => clearTimeout(timer) };
}

/** Settles with `promise`, or rejects with the signal's reason once it aborts (DNS lookups take no signal). */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
