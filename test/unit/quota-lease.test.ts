import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { QuotaStore } from '#shared/relay/quota';
import { DEFAULT_LEASE_OPTIONS, type LeaseTicket, QuotaLeases } from '#shared/relay/quota-lease';
import type { LeaseRecord, LeaseStore, LeaseTaken } from '#shared/relay/quota-lease-store';

// shared/relay/quota-lease.ts over a store that keeps one key's item in memory with the conditions DynamoLeaseStore
// writes (the same calls run on both engines in test/integration/relay-quota-lease.test.ts). Time is the test's.

/** One key's item: the conditions and updates of DynamoQuotaStore and DynamoLeaseStore, in memory. */
class MemoryKey implements LeaseStore, QuotaStore {
  remain: number;
  used = 0;
  readonly leaseMap = new Map<string, { held: number; expiresAt: number }>();
  readonly calls: string[] = [];

  constructor(remain: number) {
    this.remain = remain;
  }

  private async tick(name: string) {
    this.calls.push(name);
    await Promise.resolve();
  }

  async take(_keyId: string, lease: LeaseRecord, minRemain: number): Promise<LeaseTaken> {
    await this.tick('take');
    if (this.remain < Math.max(minRemain, lease.held)) return { outcome: 'insufficient' };
    this.remain -= lease.held;
    this.used += lease.held;
    this.leaseMap.set(lease.leaseId, { held: lease.held, expiresAt: lease.expiresAt });
    return {
      outcome: 'leased',
      remain: this.remain,
      others: this.records().filter((o) => o.leaseId !== lease.leaseId),
    };
  }

  async refill(_keyId: string, leaseId: string, amount: number, minRemain: number, expiresAt: number) {
    await this.tick('refill');
    const lease = this.leaseMap.get(leaseId);
    if (!lease || this.remain < Math.max(minRemain, amount)) return false;
    this.remain -= amount;
    this.used += amount;
    lease.held += amount;
    lease.expiresAt = expiresAt;
    return true;
  }

  async charge(_keyId: string, leaseId: string, cost: number, expiresAt: number) {
    await this.tick('charge');
    const lease = this.leaseMap.get(leaseId);
    if (!lease) return false;
    lease.held -= cost;
    lease.expiresAt = expiresAt;
    return true;
  }

  async end(_keyId: string, leaseId: string, expiredBefore?: number) {
    await this.tick('end');
    const lease = this.leaseMap.get(leaseId);
    if (!lease || (expiredBefore !== undefined && !(lease.expiresAt < expiredBefore))) return false;
    this.remain += lease.held;
    this.used -= lease.held;
    this.leaseMap.delete(leaseId);
    return true;
  }

  async leases() {
    await this.tick('leases');
    return this.records();
  }

  async reserve(_keyId: string, amount: number) {
    await this.tick('reserve');
    if (this.remain <= 0) return 'exhausted' as const;
    this.remain -= amount;
    this.used += amount;
    return 'reserved' as const;
  }

  async settle(_keyId: string, delta: number) {
    await this.tick('settle');
    this.remain += delta;
    this.used -= delta;
  }

  records(): LeaseRecord[] {
    return [...this.leaseMap].map(([leaseId, lease]) => ({ leaseId, ...lease }));
  }
}

function clock(start = 1_000_000) {
  let at = start;
  return { now: () => at, advance: (ms: number) => (at += ms) };
}

let ids = 0;
const newId = () => {
  ids += 1;
  return `lease-${ids}`;
};

describe('quota leases', () => {
  it('renews the block of a request still in flight, so its instance never loses it', async () => {
    const key = new MemoryKey(1_000_000);
    const time = clock();
    const leases = new QuotaLeases(key, {}, undefined, time.now, newId);
    const ticket = await leases.admit('k', 100);
    const [taken] = key.records();

    time.advance(DEFAULT_LEASE_OPTIONS.leaseMs / 2);
    await leases.sweep();

    expect(key.records()[0]?.expiresAt).toBe(time.now() + DEFAULT_LEASE_OPTIONS.leaseMs);
    expect(key.records()[0]?.expiresAt).toBeGreaterThan(taken?.expiresAt ?? Infinity);
    expect(ticket && (await leases.charge(ticket, 40))).toBe(true);
    await leases.close();
    expect({ remain: key.remain, used: key.used, leases: key.records() }).toEqual({
      remain: 1_000_000 - 40,
      used: 40,
      leases: [],
    });
  });

  it('never admits from a block past its expiry margin (a frozen instance): it returns it and takes another', async () => {
    const key = new MemoryKey(1_000_000);
    const time = clock();
    const leases = new QuotaLeases(key, {}, undefined, time.now, newId);
    const first = await leases.admit('k', 100);
    if (first) await leases.charge(first, 10);

    time.advance(DEFAULT_LEASE_OPTIONS.leaseMs - DEFAULT_LEASE_OPTIONS.marginMs);
    const second = await leases.admit('k', 100);
    await leases.settled();

    expect(second?.lease).not.toBe(first?.lease);
    expect(key.records()).toHaveLength(1);
    expect(key.remain).toBe(1_000_000 - 10 - 20 * 100);
    expect(key.calls.filter((call) => call === 'take')).toHaveLength(2);
  });

  it('uses up its block when the remainder is too small for another, then returns it and reserves per request', async () => {
    // Room for the first block (4 × 4 × 100) and not for a second one.
    const key = new MemoryKey(1_700);
    const leases = new QuotaLeases(key, { blockRequests: 4 }, undefined, clock().now, newId);
    const tickets: (LeaseTicket | undefined)[] = [];
    for (let i = 0; i < 4; i += 1) tickets.push(await leases.admit('k', 100));
    await leases.settled();

    expect(tickets.every((ticket) => ticket !== undefined)).toBe(true);
    expect(await leases.admit('k', 100)).toBeUndefined();
    expect(key.calls).toEqual(['take', 'refill']);
    for (const ticket of tickets) if (ticket) await leases.charge(ticket, 90);
    await leases.settled();
    expect({ remain: key.remain, used: key.used, leases: key.records() }).toEqual({
      remain: 1_700 - 360,
      used: 360,
      leases: [],
    });
  });

  it('keeps every unit of a key accounted for, and overspends by less than one estimate, across two instances', async () => {
    // Steps of two instances sharing one key: admissions (each charged at most its estimate, or released), time,
    // care; then both close. Per-request reservations stand in for the meter's fallback.
    const step = fc.oneof(
      fc.record({
        kind: fc.constant('burst' as const),
        instance: fc.integer({ min: 0, max: 1 }),
        count: fc.integer({ min: 1, max: 30 }),
        amount: fc.integer({ min: 1, max: 400 }),
        spent: fc.oneof(fc.constant(1), fc.double({ min: 0, max: 1, noNaN: true })),
      }),
      fc.record({ kind: fc.constant('wait' as const) }),
      fc.record({ kind: fc.constant('time' as const), ms: fc.integer({ min: 0, max: 60_000 }) }),
      fc.record({ kind: fc.constant('sweep' as const), instance: fc.integer({ min: 0, max: 1 }) }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 20_000 }),
        fc.array(step, { maxLength: 40 }),
        async (initial, steps) => {
          const key = new MemoryKey(initial);
          const time = clock();
          const instances = [0, 1].map(
            () => new QuotaLeases(key, { blockRequests: 4, share: 2 }, undefined, time.now, newId),
          );
          let charged = 0;
          let largest = 0;
          let inFlight: Promise<void>[] = [];
          // One request as the meter runs it: from a block, else reserved per request; charged at most its estimate.
          const request = async (leases: QuotaLeases, amount: number, cost: number) => {
            const ticket = await leases.admit('k', amount);
            if (ticket) {
              largest = Math.max(largest, amount);
              if (!(await leases.charge(ticket, cost))) await key.settle('k', -cost);
              charged += cost;
            } else if ((await key.reserve('k', amount)) === 'reserved') {
              largest = Math.max(largest, amount);
              await key.settle('k', amount - cost);
              charged += cost;
            }
          };
          for (const s of steps) {
            if (s.kind === 'time') time.advance(s.ms);
            else if (s.kind === 'sweep') await instances[s.instance]?.sweep();
            else if (s.kind === 'wait') {
              await Promise.all(inFlight);
              inFlight = [];
            } else {
              const leases = instances[s.instance] as QuotaLeases;
              for (let i = 0; i < s.count; i += 1)
                inFlight.push(request(leases, s.amount, Math.floor(s.amount * s.spent)));
            }
            expect(key.remain + key.used).toBe(initial);
          }
          await Promise.all(inFlight);
          await Promise.all(instances.map((leases) => leases.close()));
          expect(key.records()).toEqual([]);
          expect(key.used).toBe(charged);
          expect(key.remain).toBe(initial - charged);
          expect(key.remain).toBeGreaterThan(-Math.max(largest, 1));
        },
      ),
      { numRuns: 300 },
    );
  });
});
