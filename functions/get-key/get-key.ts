import { type KeyView, keyNotFound, parseKeyId, toKeyView } from '#shared/key-view';
import type { RelayKeysRepository } from '#shared/repositories/relay-keys';

export interface GetKeyDeps {
  repo: Pick<RelayKeysRepository, 'findById'>;
  now: () => Date;
}

/** One relay key by the `{id}` of its path, masked; 404 when there is none. */
export async function getKey(idParameter: unknown, deps: GetKeyDeps): Promise<KeyView> {
  const id = parseKeyId(idParameter);
  const key = await deps.repo.findById(id);
  if (key === undefined) throw keyNotFound();
  return toKeyView(key, deps.now());
}
