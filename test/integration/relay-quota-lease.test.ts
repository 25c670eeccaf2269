import { describe, expect, it } from 'vitest';
import { ratiosFor, requestCost } from '#shared/relay/quota';
import { DEFAULT_LEASE_OPTIONS } from '#shared/relay/quota-lease';
import { MemoryUsageSink } from '#shared/relay/usage-store';
import { TEST_ENGINE_NAME } from '#test/support/dynamo-engine';
import {
  COST,
  ESTIMATE,
  frontDoor,
  putKey,
  quotaMeter,
  quotaOf,
  RATIOS,
  usageRecord,
  useQuotaWorld,
} from '#test/support/relay-quota';

// docs/performance.md, "Quotas: the lease": an instance admits a key's requests from a block of its quota reserved
// ahead, refills it in the background, returns it when idle, and a dead instance's block goes back to the key once it
// expired. Two meters are two instances (each with its own clock where the test moves time).

const world = useQuotaWorld();

/** A clock the test moves. */
function clock() {
  let at = Date.now();
  return { now: () => at, advance: (ms: number) => (at += ms) };
}

const BLOCK = DEFAULT_LEASE_OPTIONS.blockRequests * ESTIMATE;

describe(`quota leases on ${TEST_ENGINE_NAME}`, () => {
  it('admits a key’s later requests from one block without a round trip, and returns the rest once idle', async () => {
    const initial = 1_000_000;
    const key = await putKey(world, { unlimitedQuota: false, remainQuota: initial });
    const time = clock();
    const { meter, leases, calls, errors } = quotaMeter(world, { now: time.now });
    const { send, records } = frontDoor(meter);

    for (let i = 0; i < 5; i += 1) expect((await send(key)).status).toBe(200);

    // One UpdateItem took the block; the five admissions then reserved nothing on the table.
    expect(calls.lease.take).toBe(1);
    expect(calls.quota.reserve).toBeUndefined();
    expect(calls.lease.charge).toBe(5);
    const leased = await quotaOf(world, key);
    expect(leased.remain).toBe(initial - BLOCK);
    expect(leased.used).toBe(BLOCK);
    expect(leased.leases).toEqual([
      { leaseId: expect.any(String), held: BLOCK - 5 * COST, expiresAt: time.now() + DEFAULT_LEASE_OPTIONS.leaseMs },
    ]);
    expect(records.records.map((r) => r.cost)).toEqual([COST, COST, COST, COST, COST]);

    time.advance(DEFAULT_LEASE_OPTIONS.idleMs);
    await leases?.sweep();
    await leases?.settled();

    expect(await quotaOf(world, key)).toEqual({ remain: initial - 5 * COST, used: 5 * COST, leases: [] });
    expect(errors).toEqual([]);
  });

  it('refills the block in the background before it runs out', async () => {
    const key = await putKey(world, { unlimitedQuota: false, remainQuota: 1_000_000 });
    const { leases, calls } = quotaMeter(world, { leases: { blockRequests: 4 } });
    const amount = 1000;

    const first = [];
    for (let i = 0; i < 3; i += 1) first.push(await leases?.admit(key.id, amount));
    // The third admission left less than half a block: a refill was sent, and the admission did not wait for it.
    expect(calls.lease.refill).toBe(1);
    await leases?.settled();
    const later = [];
    for (let i = 0; i < 3; i += 1) later.push(await leases?.admit(key.id, amount));

    expect([...first, ...later].every((ticket) => ticket !== undefined)).toBe(true);
    expect(calls.lease.take).toBe(1);
    expect((await quotaOf(world, key)).leases.map((lease) => lease.held)).toEqual([8 * amount]);
    for (const ticket of [...first, ...later]) if (ticket) await leases?.charge(ticket, 10);
    await leases?.close();
    expect(await quotaOf(world, key)).toEqual({ remain: 1_000_000 - 60, used: 60, leases: [] });
  });

  it('returns a dead instance’s block to the key once it expired, and a refused request is admitted again', async () => {
    // The dead instance takes a block of all but 100 of the quota (share 1: as much as is there), spends one request.
    const initial = 4 * ESTIMATE + 100;
    const key = await putKey(world, { unlimitedQuota: false, remainQuota: initial });
    const dead = quotaMeter(world, { leases: { blockRequests: 4, share: 1 } });
    expect((await frontDoor(dead.meter).send(key)).status).toBe(200);
    const [block] = (await quotaOf(world, key)).leases;
    expect(block?.held).toBe(4 * ESTIMATE - COST);

    // Another instance has only the 100 outside the block: two requests fit (the second overspends by less than one
    // request's cost), the third is refused while the block is live.
    const time = clock();
    const other = quotaMeter(world, { now: time.now });
    const door = frontDoor(other.meter);
    expect([(await door.send(key)).status, (await door.send(key)).status, (await door.send(key)).status]).toEqual([
      200, 200, 429,
    ]);

    time.advance(DEFAULT_LEASE_OPTIONS.leaseMs + DEFAULT_LEASE_OPTIONS.graceMs + 1);
    expect((await door.send(key)).status).toBe(200);

    const after = await quotaOf(world, key);
    expect(after.leases).toEqual([]);
    expect(after.used).toBe(4 * COST);
    expect(after.remain).toBe(initial - 4 * COST);
    expect(other.errors).toEqual([]);
  });

  it('charges the key itself for a request whose block another instance returned meanwhile', async () => {
    const initial = 1_000_000;
    const key = await putKey(world, { unlimitedQuota: false, remainQuota: initial });
    const { meter } = quotaMeter(world);
    const request = {
      requestId: 'slow-1',
      keyId: key.id,
      limitedQuota: true,
      group: 'vip',
      model: 'gpt-4o',
      body: { model: 'gpt-4o' },
      bodyBytes: 20,
      endpoint: 'chat' as const,
    };
    await meter.admit(request);
    const [block] = (await quotaOf(world, key)).leases;

    // Another instance, later than the block's expiry and grace, finds it and returns it.
    const time = clock();
    time.advance(DEFAULT_LEASE_OPTIONS.leaseMs + DEFAULT_LEASE_OPTIONS.graceMs + 1);
    const other = quotaMeter(world, { now: time.now });
    expect(await other.leases?.reclaimExpired(key.id)).toBe(true);
    expect(block).toBeDefined();
    await meter.sink(new MemoryUsageSink()).write(usageRecord('slow-1', key.id));

    expect(await quotaOf(world, key)).toEqual({ remain: initial - COST, used: COST, leases: [] });
  });

  it('never lets two instances sharing a key overspend by more than one request’s cost', async () => {
    // Blocks of 4 estimates, each at most half the remainder: both instances lease at first, then fall back. Requests
    // answered with 500 tokens cost nearly their estimate, so blocks run out as fast as they can.
    const usage = { promptTokens: 10, completionTokens: 500 };
    const cost = requestCost(usage, ratiosFor(RATIOS, 'gpt-4o', 'vip'));
    expect(cost).toBeLessThanOrEqual(ESTIMATE);
    const initial = 100_000;
    const key = await putKey(world, { unlimitedQuota: false, remainQuota: initial });
    const instances = [0, 1].map(() => quotaMeter(world, { leases: { blockRequests: 4, share: 2 } }));
    const doors = instances.map(({ meter }) => frontDoor(meter, usage));

    let admitted = 0;
    for (let round = 0; round < 100; round += 1) {
      const replies = await Promise.all(doors.flatMap((door) => Array.from({ length: 25 }, () => door.send(key))));
      const ok = replies.filter((reply) => reply.status === 200).length;
      expect(ok + replies.filter((reply) => reply.status === 429).length).toBe(50);
      admitted += ok;
      const { remain, used } = await quotaOf(world, key);
      // Whatever is leased counts as used until it is charged or returned: the total never moves.
      expect((remain ?? 0) + (used ?? 0)).toBe(initial);
      if (ok === 0) break;
    }
    // Both instances admitted from blocks of their own (a charge is made only for a request admitted from a block).
    expect(instances.map(({ calls }) => (calls.lease.charge ?? 0) > 0)).toEqual([true, true]);
    await Promise.all(instances.map(({ meter }) => meter.close()));
    const closed = await quotaOf(world, key);
    expect(closed).toEqual({ remain: initial - admitted * cost, used: admitted * cost, leases: [] });
    expect(closed.remain).toBeGreaterThan(-cost);
    // What was parked in the other instance's block is spendable again, down to the last request.
    const last = frontDoor(quotaMeter(world).meter, usage);
    while ((await last.send(key)).status === 200) admitted += 1;
    const final = await quotaOf(world, key);
    expect(final.used).toBe(admitted * cost);
    expect(final.remain).toBeLessThanOrEqual(0);
    expect(final.remain).toBeGreaterThan(-cost);
    expect(instances.flatMap(({ errors }) => errors)).toEqual([]);
  });
});
