import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RelayChannel } from '#shared/relay/contract';
import { adapterFor, isServable } from '#shared/relay/providers/index';
import { prepareBody } from '#shared/relay/relay';
import {
  buildSnapshot,
  ChannelPicker,
  noCandidateReason,
  resolveGroup,
  upstreamModel,
  WEIGHT_SMOOTHING,
} from '#shared/relay/routing';
import { channel } from '#test/support/relay-fixtures';
import { seededRandom } from '#test/support/seeded-random';

const arbChannels = fc
  .array(
    fc.record({
      priority: fc.option(fc.integer({ min: -2, max: 3 }), { nil: undefined }),
      weight: fc.option(fc.integer({ min: 0, max: 50 }), { nil: undefined }),
      enabled: fc.boolean(),
    }),
    { minLength: 1, maxLength: 30 },
  )
  .map((rows) =>
    rows.map((row, i) =>
      channel({
        id: `c${i}`,
        status: row.enabled ? 'enabled' : 'disabled',
        settings: {
          ...(row.priority !== undefined ? { priority: row.priority } : {}),
          ...(row.weight !== undefined ? { weight: row.weight } : {}),
        },
      }),
    ),
  );

function drain(picker: ChannelPicker): RelayChannel[] {
  const out: RelayChannel[] = [];
  for (let c = picker.next(); c !== undefined; c = picker.next()) out.push(c);
  return out;
}

describe('relay selection', () => {
  it('never returns the same channel twice and returns every enabled candidate once', () => {
    fc.assert(
      fc.property(arbChannels, fc.integer(), (channels, seed) => {
        // prepare
        const snapshot = buildSnapshot(channels, isServable);
        const resolved = resolveGroup(snapshot, ['default'], 'gpt-4o-mini');
        const enabled = channels.filter((c) => c.status === 'enabled').map((c) => c.id);
        // act
        const picked = resolved ? drain(new ChannelPicker(resolved.tiers, seededRandom(seed))) : [];
        // assert
        expect(new Set(picked.map((c) => c.id)).size).toBe(picked.length);
        expect(picked.map((c) => c.id).sort()).toEqual([...enabled].sort());
      }),
      { seed: 7, numRuns: 300 },
    );
  });

  it('walks priority tiers from the highest down', () => {
    fc.assert(
      fc.property(arbChannels, fc.integer(), (channels, seed) => {
        // prepare
        const snapshot = buildSnapshot(channels, isServable);
        const resolved = resolveGroup(snapshot, ['default'], 'gpt-4o-mini');
        // act
        const priorities = resolved
          ? drain(new ChannelPicker(resolved.tiers, seededRandom(seed))).map((c) => c.settings.priority ?? 0)
          : [];
        // assert
        for (let i = 1; i < priorities.length; i++) {
          expect(priorities[i]).toBeLessThanOrEqual(priorities[i - 1] as number);
        }
      }),
      { seed: 11, numRuns: 300 },
    );
  });

  it('shares first picks in proportion to weight + 10 in the long run', () => {
    // prepare
    const weights = [0, 10, 30, 5];
    const channels = weights.map((weight, i) => channel({ id: `w${i}`, settings: { weight } }));
    const snapshot = buildSnapshot(channels, isServable);
    const tiers = resolveGroup(snapshot, ['default'], 'gpt-4o-mini')?.tiers ?? [];
    const random = seededRandom(1234);
    const draws = 60_000;
    const counts = new Map<string, number>();
    // act
    for (let i = 0; i < draws; i++) {
      const id = new ChannelPicker(tiers, random).next()?.id ?? 'none';
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    // assert: chi-square with 3 degrees of freedom under 16.27 (p = 0.001); the seed is fixed, so it never flakes
    const total = weights.reduce((s, w) => s + w + WEIGHT_SMOOTHING, 0);
    let chi = 0;
    weights.forEach((w, i) => {
      const expected = (draws * (w + WEIGHT_SMOOTHING)) / total;
      const observed = counts.get(`w${i}`) ?? 0;
      chi += (observed - expected) ** 2 / expected;
    });
    expect(chi).toBeLessThan(16.27);
  });

  it('gives equal shares when no channel has a weight', () => {
    // prepare
    const channels = [0, 1, 2].map((i) => channel({ id: `e${i}` }));
    const tiers = resolveGroup(buildSnapshot(channels, isServable), ['default'], 'gpt-4o-mini')?.tiers ?? [];
    const random = seededRandom(99);
    const counts = [0, 0, 0];
    // act
    for (let i = 0; i < 30_000; i++) {
      const id = new ChannelPicker(tiers, random).next()?.id ?? '';
      const index = Number(id.slice(1));
      counts[index] = (counts[index] ?? 0) + 1;
    }
    // assert
    for (const count of counts) expect(Math.abs(count - 10_000)).toBeLessThan(400);
  });

  it('skips channels the health check refuses and moves to the next tier', () => {
    // prepare
    const channels = [
      channel({ id: 'top', settings: { priority: 5 } }),
      channel({ id: 'low', settings: { priority: 1 } }),
    ];
    const tiers = resolveGroup(buildSnapshot(channels, isServable), ['default'], 'gpt-4o-mini')?.tiers ?? [];
    const picker = new ChannelPicker(tiers, seededRandom(1), (c) => c.id !== 'top');
    // act
    const picked = drain(picker);
    // assert
    expect(picked.map((c) => c.id)).toEqual(['low']);
    expect(picker.skipped).toBe(1);
  });

  it('uses the first of the caller groups that has any candidate', () => {
    // prepare
    const channels = [
      channel({ id: 'vip', settings: { groups: ['vip'] } }),
      channel({ id: 'def' }),
      channel({ id: 'other', models: ['gpt-4o'], settings: { groups: ['first'] } }),
    ];
    const snapshot = buildSnapshot(channels, isServable);
    // act
    const resolved = resolveGroup(snapshot, ['first', 'vip', 'default'], 'gpt-4o-mini');
    // assert
    expect(resolved?.group).toBe('vip');
    expect(resolved?.tiers.flatMap((t) => t.channels.map((c) => c.id))).toEqual(['vip']);
  });

  it('counts a modelMapping key as a model served and maps one hop only', () => {
    // prepare
    const mapped = channel({
      id: 'm',
      models: ['real-model'],
      settings: { modelMapping: { alias: 'real-model', 'real-model': 'other' } },
    });
    const snapshot = buildSnapshot([mapped], isServable);
    // act
    const resolved = resolveGroup(snapshot, ['default'], 'alias');
    // assert
    expect(resolved?.tiers[0]?.channels[0]?.id).toBe('m');
    expect(upstreamModel(mapped, 'alias')).toBe('real-model');
  });

  it('names why no channel serves a model: none, all disabled, none servable', () => {
    // prepare
    const snapshot = buildSnapshot(
      [
        channel({ id: 'off', models: ['a'], status: 'disabled' }),
        channel({ id: 'auto', models: ['a'], status: 'auto-disabled' }),
        channel({ id: 'hunyuan', provider: 'tencent', models: ['b'] }),
      ],
      isServable,
    );
    // act
    const reasons = ['a', 'b', 'c'].map((m) => noCandidateReason(snapshot, ['default'], m));
    // assert
    expect(reasons).toEqual(['all-disabled', 'none-servable', 'none']);
  });

  // Its cost is measured by `npm run bench -- --only relay` (no wall-clock threshold in `npm test`).
  it('selects among 10,000 channels a channel that serves the model in the group, never the same twice', () => {
    // prepare
    const channels = Array.from({ length: 10_000 }, (_, i) =>
      channel({
        id: `p${i}`,
        models: [`model-${i % 50}`, 'shared'],
        settings: { priority: i % 3, weight: i % 7, groups: ['default', `g${i % 5}`] },
      }),
    );
    const snapshot = buildSnapshot(channels, isServable);
    const random = seededRandom(5);
    const runs = 500;
    // act
    const picks: [string, RelayChannel | undefined, RelayChannel | undefined][] = [];
    for (let i = 0; i < runs; i++) {
      const model = i % 2 ? 'shared' : `model-${i % 50}`;
      const resolved = resolveGroup(snapshot, ['g9', 'default'], model);
      const picker = new ChannelPicker(resolved?.tiers ?? [], random);
      picks.push([model, picker.next(), picker.next()]);
    }
    // assert
    for (const [model, first, second] of picks) {
      expect(first?.models).toContain(model);
      expect(second?.models).toContain(model);
      expect(second?.id).not.toBe(first?.id);
    }
  });

  it('sends the mapped model upstream, one hop, for whatever mapping a channel has', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), fc.string({ minLength: 1, maxLength: 8 })),
        fc.oneof(fc.string({ minLength: 1, maxLength: 8 }), fc.constantFrom('constructor', 'toString', '__proto__')),
        (modelMapping, requested) => {
          // prepare
          const mapped = channel({ id: 'm', models: [requested], settings: { modelMapping } });
          const adapter = adapterFor('openai');
          if (!adapter) throw new Error('no openai adapter');
          // act
          const sent = prepareBody(
            { body: { model: requested }, endpoint: 'chat' },
            mapped,
            adapter,
            upstreamModel(mapped, requested),
          );
          // assert
          const expected =
            Object.hasOwn(modelMapping, requested) && modelMapping[requested] ? modelMapping[requested] : requested;
          expect(sent.model).toBe(expected);
        },
      ),
      { seed: 3, numRuns: 300 },
    );
  });
});
