import type { Logger } from '@aws-lambda-powertools/logger';
import { keyNotFound, parseKeyId } from '#shared/key-view';
import type { RelayKeysRepository } from '#shared/repositories/relay-keys';

export interface DeleteKeyDeps {
  repo: Pick<RelayKeysRepository, 'delete'>;
  logger: Pick<Logger, 'info'>;
}

/**
 * Deletes the relay key of the `{id}` of its path; 404 when there is none. It stops opening `/v1` within the
 * authorizer cache's lifetime (docs/authorization.md); its usage records keep its id.
 */
export async function deleteKey(idParameter: unknown, deps: DeleteKeyDeps): Promise<null> {
  const id = parseKeyId(idParameter);
  if (!(await deps.repo.delete(id))) throw keyNotFound();
  deps.logger.info('Relay key deleted', { id });
  return null;
}
