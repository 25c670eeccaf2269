import { FAMILIES } from '#functions/import-legacygw/families/index';
import { channelId } from '#functions/import-legacygw/identity';

/** The channel-id key of the tests' imports (a fixed value, so expected ids can be computed). */
export const TEST_CHANNEL_ID_KEY = Buffer.from('test-channel-id-key-0123456789abcdef0123456789', 'utf8');

/** The id the tests' imports give legacy row `legacyId`'s channel for `key`. */
export function testChannelId(legacyId: number | string, key: string): string {
  return channelId(TEST_CHANNEL_ID_KEY, String(legacyId), key);
}

/** What every test import needs besides its source and store: the families and the tests' channel-id key. */
export const TEST_IMPORT_CORE = {
  families: FAMILIES,
  channelIdKey: async () => TEST_CHANNEL_ID_KEY,
} as const;

/** The id a local server (npm start) gives legacy row `legacyId`'s channel for `key`: its credentials file's key. */
export function localChannelId(credentials: { channelIdKey?: string }, legacyId: number | string, key: string): string {
  if (credentials.channelIdKey === undefined) throw new Error('The local credentials have no channel-id key');
  return channelId(Buffer.from(credentials.channelIdKey, 'utf8'), String(legacyId), key);
}
