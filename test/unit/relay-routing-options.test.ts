import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { attemptsFor, type RoutingOptions } from '#shared/relay/routing-options';
import { type FakeUpstream, startFakeOpenAi } from '#test/support/fake-upstreams';
import { channel, chatRequest, readText, testRelay } from '#test/support/relay-fixtures';

// docs/relay.md, "Routing options": the legacy gateway's RetryTimes and AutomaticDisableChannelEnabled, imported into
// relayState, decide the relay's attempts and automatic disabling unless configuration sets the attempts.

let upstreams: FakeUpstream[] = [];
beforeAll(async () => {
  upstreams = await Promise.all([1, 2, 3, 4].map(() => startFakeOpenAi()));
});
afterAll(async () => {
  await Promise.all(upstreams.map((u) => u.close()));
});
afterEach(() => {
  for (const u of upstreams) u.clearFaults();
});

const imported = (options: RoutingOptions) => ({ current: async () => options });

/** Four failing channels in four tiers: a request makes as many attempts as it may. */
function fourFailing(deps: Parameters<typeof testRelay>[1]) {
  for (const u of upstreams) u.faultAlways({ kind: 'server-error' });
  return testRelay(
    upstreams.map((u, i) => channel({ id: `c${i}`, baseUrl: u.url, settings: { priority: 10 - i } })),
    deps,
  );
}

describe('routing options imported from the legacy gateway', () => {
  it('takes RetryTimes + 1 attempts when configuration sets none', async () => {
    const { relay } = fourFailing({ routingOptions: imported({ maxAttempts: 2 }) });

    const response = await relay.handle(chatRequest({}));
    await readText(response);
    const record = await response.done;

    expect(record.attempts.map((a) => a.channelId)).toEqual(['c0', 'c1']);
    relay.close();
  });

  it('lets RELAY_MAX_ATTEMPTS win over the imported RetryTimes', async () => {
    const { relay } = fourFailing({ maxAttempts: 4, routingOptions: imported({ maxAttempts: 2 }) });

    const response = await relay.handle(chatRequest({}));
    await readText(response);

    expect((await response.done).attempts).toHaveLength(4);
    relay.close();
  });

  it('falls back to three attempts when the options cannot be read', async () => {
    const { relay } = fourFailing({
      routingOptions: {
        current: async () => {
          throw new Error('relayState unreadable');
        },
      },
    });

    const response = await relay.handle(chatRequest({}));
    await readText(response);

    expect((await response.done).attempts).toHaveLength(3);
    relay.close();
  });

  it.each([
    [true, true],
    [undefined, true],
    [false, false],
  ])(
    'with AutomaticDisableChannelEnabled %s, auto-disables a channel whose key is rejected: %s',
    async (flag, disabled) => {
      const [upstream] = upstreams as [FakeUpstream];
      upstream.faultAlways({ kind: 'invalid-key' });
      const options: RoutingOptions = flag === undefined ? {} : { autoDisable: flag };
      const { relay, health } = testRelay([channel({ id: 'bad-key', baseUrl: upstream.url })], {
        routingOptions: imported(options),
      });

      for (let i = 0; i < 3; i += 1) {
        const response = await relay.handle(chatRequest({}));
        await readText(response);
        await response.done;
      }

      expect(health.autoDisabled.has('bad-key')).toBe(disabled);
      // Cooled down either way: three failures in a row.
      expect(health.items.get('bad-key')?.failures).toBe(3);
      relay.close();
    },
  );

  it('computes the attempts from configuration, then the import, then 3', () => {
    expect(attemptsFor(5, { maxAttempts: 2 })).toBe(5);
    expect(attemptsFor(undefined, { maxAttempts: 2 })).toBe(2);
    expect(attemptsFor(undefined, {})).toBe(3);
  });
});
