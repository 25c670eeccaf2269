import { describe, expect, it } from 'vitest';
import {
  type LastRetest,
  type RetestStore,
  retestChannels,
  STATUS_HISTORY_LIMIT,
  type StatusHistoryEntry,
} from '#functions/retest-channels/retest-channels';
import type { ChannelTestResult, RelayChannel } from '#shared/relay/contract';
import type { StoredChannel } from '#shared/repositories/channels';

// The re-test core (docs/relay.md, "Re-test") over an in-memory store and a scripted tester.

const channel = (id: string, extra: Partial<StoredChannel> = {}): StoredChannel => ({
  id,
  provider: 'openai',
  legacyType: 1,
  name: id,
  baseUrl: 'https://upstream.example',
  models: ['gpt-4o-mini'],
  key: `sk-key-of-${id}-0123456789`,
  status: 'auto-disabled',
  statusReason: 'invalid key 3 times',
  source: { legacyId: 1, host: 'h', database: 'd' },
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  ...extra,
});

function memoryStore(channels: StoredChannel[], operatorWins: ReadonlySet<string> = new Set()) {
  const enabled = new Map<string, { at: string; history: readonly StatusHistoryEntry[] }>();
  const failures = new Map<string, LastRetest>();
  const store: RetestStore = {
    autoDisabled: async () => channels,
    reEnable: async (id, at, history) => {
      if (operatorWins.has(id)) return false;
      enabled.set(id, { at, history });
      return true;
    },
    recordFailure: async (id, retest) => {
      failures.set(id, retest);
    },
  };
  return { store, enabled, failures };
}

const logger = { info: () => {}, warn: () => {} };
const now = () => new Date('2026-11-27T20:00:00.000Z');

describe('retestChannels', () => {
  it('re-enables the channels that pass, records the others, resets health and skips unservable ones', async () => {
    const { store, enabled, failures } = memoryStore([
      channel('ok'),
      channel('bad'),
      channel('hunyuan', { provider: 'tencent' }),
    ]);
    const reset: string[] = [];
    const tester = async (c: RelayChannel): Promise<ChannelTestResult> =>
      c.id === 'ok'
        ? { ok: true, status: 200, latencyMs: 12.4, model: 'gpt-4o-mini' }
        : { ok: false, status: 401, latencyMs: 3, model: 'gpt-4o-mini', message: 'Incorrect API key' };

    const report = await retestChannels({
      store,
      tester,
      resetHealth: async (id) => {
        reset.push(id);
      },
      now,
      logger,
    });

    expect(report).toEqual({ tested: 2, reEnabled: ['ok'], stillFailing: ['bad'], skipped: ['hunyuan'] });
    expect(enabled.get('ok')).toEqual({
      at: '2026-11-27T20:00:00.000Z',
      history: [
        {
          at: '2026-11-27T20:00:00.000Z',
          status: 'enabled',
          by: 'retest',
          note: 're-enabled by the re-test schedule: gpt-4o-mini answered 200 in 12 ms (was: invalid key 3 times)',
        },
      ],
    });
    expect(failures.get('bad')).toEqual({
      at: '2026-11-27T20:00:00.000Z',
      ok: false,
      status: 401,
      message: 'Incorrect API key',
    });
    expect(reset).toEqual(['ok']);
  });

  it('keeps at most the last entries of the history, and leaves a channel an operator changed meanwhile', async () => {
    const old = Array.from({ length: STATUS_HISTORY_LIMIT }, (_, i) => ({
      at: `2026-01-0${i}`,
      status: 'enabled' as const,
      by: 'retest' as const,
      note: `n${i}`,
    }));
    const { store, enabled } = memoryStore(
      [channel('full', { statusHistory: old }), channel('taken')],
      new Set(['taken']),
    );
    const reset: string[] = [];

    const report = await retestChannels({
      store,
      tester: async () => ({ ok: true, status: 200, latencyMs: 1, model: 'm' }),
      resetHealth: async (id) => {
        reset.push(id);
      },
      now,
      logger,
    });

    expect(enabled.get('full')?.history).toHaveLength(STATUS_HISTORY_LIMIT);
    expect(enabled.get('full')?.history[0]?.note).toBe('n1');
    expect(report.reEnabled).toEqual(['full']);
    expect(reset).toEqual(['full']);
  });
});
