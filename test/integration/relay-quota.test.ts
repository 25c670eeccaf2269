import { describe, expect, it } from 'vitest';
import { QUOTA_EXHAUSTED_MESSAGE, QuotaMeter, ratiosFor, requestCost } from '#shared/relay/quota';
import { MemoryUsageSink } from '#shared/relay/usage-store';
import { TEST_ENGINE_NAME } from '#test/support/dynamo-engine';
import {
  COST,
  frontDoor,
  putKey as putKeyIn,
  quotaMeter,
  quotaOf as quotaOfIn,
  RATIOS,
  USAGE,
  usageRecord,
  useQuotaWorld,
} from '#test/support/relay-quota';

// docs/relay.md, "Quotas": admission and metering through the `/v1` front door with the real quota store on the test
// engine (dynalite, or DYNAMODB_ENDPOINT's engine), reserving per request and with the per-instance lease as the `/v1`
// function runs it (the keys here are too small for a block, so the lease falls back to per-request reservations). The
// routing core is a fake that reports fixed usage and writes its record through the meter's sink, as the real core does.

const world = useQuotaWorld();

const putKey = (fields: Parameters<typeof putKeyIn>[1]) => putKeyIn(world, fields);
const quotaOf = async (key: Parameters<typeof quotaOfIn>[1]) => {
  const { remain, used } = await quotaOfIn(world, key);
  return { remain, used };
};

describe.each([
  ['per request', false as const],
  ['with leases', {}],
])(`quotas on ${TEST_ENGINE_NAME}, %s`, (_mode, leases) => {
  const meterDoor = () => {
    const { meter, errors, calls } = quotaMeter(world, { leases });
    return { ...frontDoor(meter), meter, errors, calls };
  };

  it("prices a request with One API's formula and the imported ratios", () => {
    expect(requestCost(USAGE, ratiosFor(RATIOS, 'gpt-4o', 'vip'))).toBe(COST);
    // A model without a ratio: One API's 30, completions at 1 (30 × 30 = 900); a group without one: 1; no tokens: free.
    expect(requestCost(USAGE, ratiosFor(RATIOS, 'other', 'default'))).toBe(900);
    expect(requestCost({}, ratiosFor(RATIOS, 'gpt-4o', 'vip'))).toBe(0);
  });

  it("exhausts a small quota after the predicted number of requests, then answers 429 with One API's message", async () => {
    const key = await putKey({ unlimitedQuota: false, remainQuota: 200 });
    const { send, records, meter, errors } = meterDoor();
    const predicted = Math.ceil(200 / COST);

    const statuses: number[] = [];
    let refusal = '';
    for (let i = 0; i < predicted + 2; i += 1) {
      const reply = await send(key);
      statuses.push(reply.status);
      if (reply.status === 429) refusal = reply.text;
    }

    expect(predicted).toBe(3);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    expect(JSON.parse(refusal)).toMatchObject({
      error: { message: QUOTA_EXHAUSTED_MESSAGE, code: 'insufficient_quota' },
    });
    expect(await quotaOf(key)).toEqual({ remain: 200 - 3 * COST, used: 3 * COST });
    expect(records.records.map((r) => r.cost)).toEqual([COST, COST, COST]);
    await meter.close();
    expect(errors).toEqual([]);
  });

  it('never lets 50 concurrent requests overspend by more than one request’s cost', async () => {
    const initial = 1000;
    const key = await putKey({ unlimitedQuota: false, remainQuota: initial });
    const { send, records, meter, errors } = meterDoor();

    const replies = await Promise.all(Array.from({ length: 50 }, () => send(key)));

    const admitted = replies.filter((r) => r.status === 200).length;
    const refused = replies.filter((r) => r.status === 429).length;
    const { remain, used } = await quotaOf(key);
    expect(admitted + refused).toBe(50);
    expect(admitted).toBeGreaterThan(0);
    expect(used).toBe(admitted * COST);
    expect(remain).toBe(initial - admitted * COST);
    expect(remain).toBeGreaterThan(-COST);
    expect(records.records).toHaveLength(admitted);
    // Once settled, every admitted request left room for the next sequential one until the quota ran out.
    while ((await send(key)).status === 200) {}
    const final = await quotaOf(key);
    expect(final.remain).toBeLessThanOrEqual(0);
    expect(final.remain).toBeGreaterThan(-COST);
    await meter.close();
    expect(errors).toEqual([]);
  });

  it('never meters an unlimited key (no call to the table), but prices its requests in the usage record', async () => {
    const key = await putKey({ unlimitedQuota: true, remainQuota: 0 });
    const { send, records, calls } = meterDoor();

    const reply = await send(key);

    expect(reply.status).toBe(200);
    expect(await quotaOf(key)).toEqual({ remain: 0, used: 0 });
    expect(records.records.map((r) => r.cost)).toEqual([COST]);
    expect(calls).toEqual({ quota: {}, lease: {} });
  });
});

describe('a limited key not yet in the byId index', () => {
  it('is admitted with nothing reserved and charged its cost once the record is written', async () => {
    const settled: [string, number][] = [];
    const meter = new QuotaMeter(
      {
        reserve: async () => 'unindexed',
        settle: async (keyId, delta) => {
          settled.push([keyId, delta]);
        },
      },
      { ratios: async () => RATIOS },
    );
    const records = new MemoryUsageSink();

    await meter.admit({
      requestId: 'r-1',
      keyId: 'k-1',
      limitedQuota: true,
      group: 'vip',
      model: 'gpt-4o',
      body: {},
      bodyBytes: 10,
      endpoint: 'chat',
    });
    await meter.sink(records).write(usageRecord('r-1', 'k-1'));

    expect(settled).toEqual([['k-1', -COST]]);
    expect(records.records[0]?.cost).toBe(COST);
  });
});
