import { unkeyedChannelId } from '#functions/import-legacygw/identity';
import { ChannelRepository, type StoredChannel } from '#shared/repositories/channels';
import type { TestServer } from '#test/support/local-server';

/** A stored channel as the import would write it; `key` defaults to a long unique key (so it is masked, not hidden). */
export function reviewChannel(
  n: number,
  fields: Partial<Pick<StoredChannel, 'provider' | 'name' | 'baseUrl' | 'models' | 'key' | 'status'>> = {},
): StoredChannel {
  const provider = fields.provider ?? 'openai';
  const baseUrl = fields.baseUrl ?? 'https://api.openai.com';
  const key = fields.key ?? `sk-review-${String(n).padStart(4, '0')}-Zq8vLmN3pT`;
  return {
    id: unkeyedChannelId(provider, baseUrl, key),
    provider,
    legacyType: 1,
    name: fields.name ?? `channel ${String(n).padStart(3, '0')}`,
    baseUrl,
    models: fields.models ?? ['gpt-4o'],
    key,
    status: fields.status ?? 'enabled',
    source: { legacyId: n, host: 'db.internal', database: 'legacy' },
    createdAt: '2026-03-01T10:00:00.000Z',
    updatedAt: '2026-03-01T10:00:00.000Z',
  };
}

/** Writes channels straight into the local server's table, as an import would. */
export async function seedChannels(server: TestServer, channels: readonly StoredChannel[]): Promise<void> {
  await new ChannelRepository(server.documents, server.tables.channels, { baseDelayMs: 5 }).putMany(channels);
}

/** `/api/channel/<id>` */
export const channelPath = (id: string) => `/api/channel/${id}`;
