import { type KeyView, toKeyView } from '#shared/key-view';
import type { RelayKeysRepository } from '#shared/repositories/relay-keys';

export interface ListKeysDeps {
  repo: Pick<RelayKeysRepository, 'list'>;
  now: () => Date;
}

/** Every relay key, masked (`sk-…<id>`), newest first. */
export async function listKeys(deps: ListKeysDeps): Promise<KeyView[]> {
  const now = deps.now();
  const keys = await deps.repo.list();
  return keys
    .map((key) => toKeyView(key, now))
    .sort((a, b) => (a.createdAt === b.createdAt ? a.id.localeCompare(b.id) : a.createdAt < b.createdAt ? 1 : -1));
}
