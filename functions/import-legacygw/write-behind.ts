/** The writes of an import, behind its row stream, and the written count every failure carries. */

import { ChannelsNotStoredError, ProxyApiError } from '#shared/errors';
import { ChannelWriteError } from '#shared/repositories/channels';

/**
 * The chunks read, classified and written behind the row stream: at most `limit` at once. Every write's count is
 * added up, whether it succeeds or gives up part-way, and the first failure is kept. The promises it
 * holds never reject, so a write that fails while the import is reading is never an unhandled rejection.
 */
export class WriteBehind {
  written = 0;
  /** The first write failure, boxed because anything can be thrown. */
  failure: { error: unknown } | undefined;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly limit: number) {}

  /** Waits for a free slot, then starts `write` without waiting for it; throws the first failure instead. */
  async start(write: () => Promise<number>): Promise<void> {
    while (this.inFlight.size >= this.limit) await Promise.race(this.inFlight);
    this.throwIfFailed();
    const settled: Promise<void> = write()
      .then(
        (count) => {
          this.written += count;
        },
        (error: unknown) => {
          if (error instanceof ChannelWriteError) this.written += error.written;
          this.failure ??= { error };
        },
      )
      .finally(() => this.inFlight.delete(settled));
    this.inFlight.add(settled);
  }

  /** Waits for every write in flight, then throws the first failure, if any. */
  async drain(): Promise<void> {
    await this.settle();
    this.throwIfFailed();
  }

  /** Waits for every write in flight, whatever their outcome. */
  async settle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all(this.inFlight);
  }

  throwIfFailed(): void {
    if (this.failure !== undefined) throw this.failure.error;
  }
}

/**
 * A failure after channels were stored says how many in total, so the caller knows that a re-run completes the
 * import: a lost database connection (502) gets the count in its message; a write failure (500) says the run's total
 * rather than its last chunk's.
 */
export function withWrittenCount(error: unknown, written: number): unknown {
  if (error instanceof ChannelWriteError) return new ChannelsNotStoredError(written, { cause: error.cause });
  if (written > 0 && error instanceof ProxyApiError && error.httpStatus === 502) {
    return new ProxyApiError(
      502,
      `${error.message}; ${written} channel(s) were written before it stopped. Run the same import again to complete it.`,
      { cause: error },
    );
  }
  return error;
}
