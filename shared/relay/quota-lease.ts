import { randomBytes } from 'node:crypto';
import type { LeaseRecord, LeaseStore } from './quota-lease-store.ts';

/*
 * Admission without a round trip (docs/performance.md, "Quotas: the lease"). An instance takes a block of a limited
 * key's quota with one conditional UpdateItem and admits that key's later requests from the block in memory while it
 * holds their estimate; it refills in the background before the block runs out, charges each request's cost to the
 * block after its response (as the per-request settlement did), and returns what is left when the key goes idle. Blocks
 * are only taken from quota that exists and never more than a share of the remainder, so near the end of a quota every
 * request falls back to the per-request reservation (QuotaMeter) and the overspend bound stays one request's cost.
 *
 * A block outlives its instance by at most `leaseMs` after its last charge or renewal: past that it is no longer
 * admitted from, and `graceMs` later (clock skew between instances) any instance may return it to the key (when it
 * takes a block of its own, or when a request of the key is refused).
 */

/** How blocks are sized and kept. Defaults in DEFAULT_LEASE_OPTIONS. */
export interface LeaseOptions {
  /** A block holds this many estimates of the request that asked for it. */
  readonly blockRequests: number;
  /** A block is taken only when the remainder is at least this many blocks (a block ≤ 1/share of the remainder). */
  readonly share: number;
  /** A block expires this long after its last charge or renewal. */
  readonly leaseMs: number;
  /** Not admitted from in the last `marginMs` before its expiry (a request admitted then has time to be charged). */
  readonly marginMs: number;
  /** Another instance's expired block is returned only this long after its expiry (instances' clocks differ). */
  readonly graceMs: number;
  /** A block with no request for this long is returned. */
  readonly idleMs: number;
  /** After a key's remainder was too small for a block, per-request reservations for this long before trying again. */
  readonly retryMs: number;
  /** At most one look for expired blocks per key and instance this often (on refusals). */
  readonly reclaimEveryMs: number;
}

export const DEFAULT_LEASE_OPTIONS: LeaseOptions = {
  blockRequests: 20,
  share: 4,
  leaseMs: 30_000,
  marginMs: 5_000,
  graceMs: 10_000,
  idleMs: 10_000,
  retryMs: 10_000,
  reclaimEveryMs: 5_000,
};

/** This instance's block of one key. */
interface Lease {
  readonly keyId: string;
  readonly leaseId: string;
  /** What the item's record holds once every write of this instance has landed. */
  held: number;
  /** The estimates of requests admitted from the block and not yet charged. */
  open: number;
  openCount: number;
  /** The expiry the item's record is known to carry. */
  expiresAt: number;
  /** The estimate the block is sized by (the largest seen). */
  unit: number;
  lastUsed: number;
  /** A refill was refused: no more refills; returned once its last request is charged. */
  draining: boolean;
  /** No more admissions: returned, being returned, or replaced by a newer block. */
  ending: boolean;
  /** Its return was sent (or it is known to be gone from the item). */
  returned: boolean;
  refilling?: Promise<void>;
}

/** A request admitted from a block: charged to it once its cost is known. */
export interface LeaseTicket {
  readonly lease: Lease;
  readonly amount: number;
}

/** Per-instance blocks of limited keys' quotas over a LeaseStore. */
export class QuotaLeases {
  private readonly options: LeaseOptions;
  private readonly current = new Map<string, Lease>();
  private readonly taking = new Map<string, Promise<void>>();
  private readonly smallUntil = new Map<string, number>();
  private readonly reclaimedAt = new Map<string, number>();
  private readonly background = new Set<Promise<unknown>>();
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly store: LeaseStore,
    options: Partial<LeaseOptions> = {},
    private readonly onError: (message: string, error: unknown) => void = () => {},
    private readonly now: () => number = Date.now,
    private readonly newId: () => string = () => randomBytes(12).toString('hex'),
  ) {
    this.options = { ...DEFAULT_LEASE_OPTIONS, ...options };
  }

  /** Admits a request of `amount` from this instance's block of the key; undefined: reserve it per request instead. */
  async admit(keyId: string, amount: number): Promise<LeaseTicket | undefined> {
    const ticket = this.fromBlock(keyId, amount);
    if (ticket) return ticket;
    const pending = this.taking.get(keyId);
    if (pending) {
      await pending;
      return this.fromBlock(keyId, amount);
    }
    if ((this.smallUntil.get(keyId) ?? 0) > this.now()) return undefined;
    const lease = this.current.get(keyId);
    if (lease && this.usable(lease) && !lease.draining) {
      await this.refill(lease, amount);
      return this.fromBlock(keyId, amount);
    }
    // A block that expired here (the instance was frozen past it) goes back first, in parallel with the new one.
    if (lease) this.retire(lease);
    const taking = this.take(keyId, amount).finally(() => this.taking.delete(keyId));
    this.taking.set(keyId, taking);
    await taking;
    return this.fromBlock(keyId, amount);
  }

  /**
   * Charges an admitted request's cost to its block (0: it was never sent). False when the block was returned
   * meanwhile (by another instance, after its expiry): the caller charges the key itself.
   */
  async charge(ticket: LeaseTicket, cost: number): Promise<boolean> {
    const { lease } = ticket;
    lease.open -= ticket.amount;
    lease.openCount -= 1;
    lease.held -= cost;
    let charged = true;
    try {
      if (cost !== 0) {
        const until = this.now() + this.options.leaseMs;
        charged = await this.store.charge(lease.keyId, lease.leaseId, cost, until);
        if (charged) lease.expiresAt = Math.max(lease.expiresAt, until);
        else this.gone(lease);
      }
    } finally {
      // Charged after the response, before the invocation ends: the block's own writes under way land before a Lambda
      // instance can be frozen, rather than after it thaws.
      const last = lease.openCount === 0 && (lease.draining || this.current.get(lease.keyId) !== lease);
      await (last ? this.end(lease) : lease.refilling);
    }
    return charged;
  }

  /**
   * Returns other instances' blocks of the key that expired (at most once per `reclaimEveryMs`); true when one was
   * returned, so a refused request may try once more.
   */
  async reclaimExpired(keyId: string): Promise<boolean> {
    const now = this.now();
    if ((this.reclaimedAt.get(keyId) ?? -Infinity) > now - this.options.reclaimEveryMs) return false;
    this.reclaimedAt.set(keyId, now);
    const own = this.current.get(keyId)?.leaseId;
    const expired = (await this.store.leases(keyId)).filter(
      (lease) => lease.leaseId !== own && lease.expiresAt < now - this.options.graceMs,
    );
    const ended = await Promise.all(expired.map((lease) => this.store.end(keyId, lease.leaseId, lease.expiresAt + 1)));
    return ended.some(Boolean);
  }

  /**
   * The periodic care of the blocks (every `leaseMs / 3` once a block exists): renews blocks with requests in flight,
   * returns idle ones and forgets expired ones.
   */
  async sweep(): Promise<void> {
    const now = this.now();
    const work: Promise<unknown>[] = [];
    for (const lease of this.current.values()) {
      if (lease.openCount > 0) {
        if (lease.expiresAt - now < (this.options.leaseMs * 2) / 3) work.push(this.renew(lease));
      } else if (now - lease.lastUsed >= this.options.idleMs || !this.usable(lease)) {
        work.push(this.end(lease));
      }
    }
    await Promise.all(work);
  }

  /** Returns every block (the instance ends; tests); waits for the writes under way. */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await Promise.all([...this.current.values()].map((lease) => this.end(lease)));
    while (this.background.size > 0) await Promise.all([...this.background]);
  }

  /** Settles when every background write (refills, returns) has landed. */
  async settled(): Promise<void> {
    while (this.background.size > 0) await Promise.all([...this.background]);
  }

  private usable(lease: Lease): boolean {
    return !lease.ending && this.now() < lease.expiresAt - this.options.marginMs;
  }

  private fromBlock(keyId: string, amount: number): LeaseTicket | undefined {
    const lease = this.current.get(keyId);
    if (!lease || !this.usable(lease) || lease.held - lease.open < amount) return undefined;
    lease.open += amount;
    lease.openCount += 1;
    lease.lastUsed = this.now();
    lease.unit = Math.max(lease.unit, amount);
    const block = lease.unit * this.options.blockRequests;
    if (!lease.draining && !lease.refilling && lease.held - lease.open < block / 2) {
      this.track(this.refill(lease, amount));
    }
    return { lease, amount };
  }

  private async take(keyId: string, amount: number): Promise<void> {
    const block = amount * this.options.blockRequests;
    const record: LeaseRecord = { leaseId: this.newId(), held: block, expiresAt: this.now() + this.options.leaseMs };
    try {
      const taken = await this.store.take(keyId, record, block * this.options.share);
      if (taken.outcome !== 'leased') {
        this.smallUntil.set(keyId, this.now() + this.options.retryMs);
        return;
      }
      const previous = this.current.get(keyId);
      if (previous) this.retire(previous);
      this.current.set(keyId, {
        keyId,
        leaseId: record.leaseId,
        held: block,
        open: 0,
        openCount: 0,
        expiresAt: record.expiresAt,
        unit: amount,
        lastUsed: this.now(),
        draining: false,
        ending: false,
        returned: false,
      });
      this.startTimer();
      const before = this.now() - this.options.graceMs;
      for (const other of taken.others) {
        if (other.expiresAt < before) {
          this.track(
            this.store
              .end(keyId, other.leaseId, other.expiresAt + 1)
              .catch((error) => this.onError('relay: expired quota lease not returned', error)),
          );
        }
      }
    } catch (error) {
      this.onError('relay: quota lease not taken', error);
      this.smallUntil.set(keyId, this.now() + this.options.retryMs);
    }
  }

  private refill(lease: Lease, amount: number): Promise<void> {
    if (lease.refilling) return lease.refilling;
    lease.unit = Math.max(lease.unit, amount);
    const block = lease.unit * this.options.blockRequests;
    const until = this.now() + this.options.leaseMs;
    lease.refilling = (async () => {
      try {
        const refilled = await this.store.refill(lease.keyId, lease.leaseId, block, block * this.options.share, until);
        if (refilled) {
          lease.held += block;
          lease.expiresAt = Math.max(lease.expiresAt, until);
          return;
        }
        // The remainder is too small for another block (or the block was returned meanwhile): use up this one, then
        // reserve per request.
        lease.draining = true;
        this.smallUntil.set(lease.keyId, this.now() + this.options.retryMs);
        if (lease.openCount === 0) await this.end(lease);
      } catch (error) {
        this.onError('relay: quota lease not refilled', error);
      } finally {
        lease.refilling = undefined;
      }
    })();
    return lease.refilling;
  }

  private async renew(lease: Lease): Promise<void> {
    const until = this.now() + this.options.leaseMs;
    try {
      if (await this.store.charge(lease.keyId, lease.leaseId, 0, until)) lease.expiresAt = until;
      else this.gone(lease);
    } catch (error) {
      this.onError('relay: quota lease not renewed', error);
    }
  }

  /** No more admissions from the block. */
  private forget(lease: Lease): void {
    lease.ending = true;
    if (this.current.get(lease.keyId) === lease) this.current.delete(lease.keyId);
    if (this.current.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  /** The block is no longer on the key's item (returned by another instance after its expiry). */
  private gone(lease: Lease): void {
    lease.returned = true;
    this.forget(lease);
  }

  /** Replaced or stale: returned now if no request of it is in flight, else once its last one is charged. */
  private retire(lease: Lease): void {
    this.forget(lease);
    if (lease.openCount === 0) void this.end(lease);
  }

  /** Returns what the block still holds to the key (one UpdateItem; best effort: an expired block is returned anyway). */
  private end(lease: Lease): Promise<unknown> {
    this.forget(lease);
    if (lease.returned) return Promise.resolve();
    lease.returned = true;
    return this.track(
      this.store
        .end(lease.keyId, lease.leaseId)
        .catch((error) => this.onError('relay: quota lease not returned', error)),
    );
  }

  private track<T>(work: Promise<T>): Promise<T> {
    this.background.add(work);
    void work.finally(() => this.background.delete(work)).catch(() => {});
    return work;
  }

  private startTimer(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      this.sweep().catch((error) => this.onError('relay: quota lease care failed', error));
    }, this.options.leaseMs / 3);
    this.timer.unref?.();
  }
}
