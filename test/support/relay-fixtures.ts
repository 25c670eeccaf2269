import { parseAllowList } from '#shared/allow-list';
import { staticChannelSource } from '#shared/relay/channel-source';
import type { RelayCaller, RelayChannel, RelayRequest, RelayResponse, UsageRecord } from '#shared/relay/contract';
import { MemoryHealthStore } from '#shared/relay/health';
import { createRelay, type Relay, type RelayDeps } from '#shared/relay/relay';
import { MemoryUsageSink } from '#shared/relay/usage-store';
import { seededRandom } from './seeded-random.ts';

/** A channel for the relay's tests; the key is a recognisable secret the tests look for. */
export function channel(overrides: Partial<RelayChannel> & { id: string }): RelayChannel {
  return {
    provider: 'openai',
    name: overrides.id,
    baseUrl: '',
    key: `sk-secret-${overrides.id}-0123456789abcdef`,
    models: ['gpt-4o-mini'],
    status: 'enabled',
    settings: {},
    ...overrides,
  };
}

export class ManualClock {
  constructor(public ms = Date.parse('2026-11-27T12:00:00.000Z')) {}
  now(): number {
    return this.ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}

export const CALLER: RelayCaller = { keyId: 'key-1', groups: ['default'] };

export interface TestRelay {
  readonly relay: Relay;
  readonly health: MemoryHealthStore;
  readonly usage: MemoryUsageSink;
  readonly clock: ManualClock;
  readonly source: ReturnType<typeof staticChannelSource>;
}

/** A relay over fixed channels, in-memory health and usage, loopback allowed (the fakes listen on 127.0.0.1). */
export function testRelay(channels: readonly RelayChannel[], deps: Partial<RelayDeps> = {}): TestRelay {
  const clock = new ManualClock();
  const health = new MemoryHealthStore(clock);
  const usage = new MemoryUsageSink();
  const source = staticChannelSource(channels);
  const relay = createRelay({
    channels: source,
    health,
    usage,
    clock,
    random: seededRandom(42),
    allowedHosts: parseAllowList(['127.0.0.1']),
    firstByteTimeoutMs: 2000,
    ...deps,
  });
  return { relay, health, usage, clock, source };
}

let counter = 0;

export function chatRequest(body: Record<string, unknown>, overrides: Partial<RelayRequest> = {}): RelayRequest {
  counter++;
  return {
    requestId: `req-${counter}`,
    endpoint: 'chat',
    body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], ...body },
    caller: CALLER,
    signal: new AbortController().signal,
    ...overrides,
  };
}

/** The whole body of a relay response as text. */
export async function readText(response: RelayResponse): Promise<string> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of response.body) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/** The `data:` payloads of an SSE text. */
export function sseDataOf(text: string): string[] {
  return text
    .split('\n\n')
    .filter((e) => e.startsWith('data: '))
    .map((e) => e.slice('data: '.length));
}

/** Reads a response's body to its end (as a front door does), then waits for its usage record. */
export async function complete(response: RelayResponse): Promise<{ text: string; record: UsageRecord }> {
  const text = await readText(response);
  return { text, record: await response.done };
}
