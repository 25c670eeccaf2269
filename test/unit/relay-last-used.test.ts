import { describe, expect, it } from 'vitest';
import { lastUsedMarker } from '#shared/relay/last-used';

function store() {
  const calls: [string, string][] = [];
  return {
    calls,
    async markUsed(id: string, at: Date) {
      calls.push([id, at.toISOString()]);
      return true;
    },
  };
}

describe("a relay key's last use", () => {
  it('is written once a minute per key, not on every request', async () => {
    const s = store();
    let t = Date.parse('2026-11-27T10:00:00Z');
    const mark = lastUsedMarker(s, () => new Date(t));

    await mark('key-a');
    t += 30_000;
    await mark('key-a');
    await mark('key-b');
    t += 31_000;
    await mark('key-a');

    expect(s.calls).toEqual([
      ['key-a', '2026-11-27T10:00:00.000Z'],
      ['key-b', '2026-11-27T10:00:30.000Z'],
      ['key-a', '2026-11-27T10:01:01.000Z'],
    ]);
  });
});
