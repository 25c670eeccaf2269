import { isIP } from 'node:net';
import type { AllowList } from '#shared/allow-list';
import { datasetErrors } from '#shared/errors';
import type { CallerContext } from '#shared/http';
import type { SourceCollections } from '#shared/kb/sources/collections-port';
import { asRequestError } from '#shared/kb/sources/errors';
import { parseLink } from '#shared/kb/sources/link';
import { type CreateLinkBody, chunkSettingsOf } from '#shared/kb/sources/settings';
import { addressAllowed } from '#shared/relay/outbound';

export interface CreateLinkDeps {
  readonly collections: Pick<SourceCollections, 'createSourceCollection'>;
  readonly allowedHosts: AllowList;
}

/**
 * FastGPT's POST /api/core/dataset/collection/create/link (docs/knowledge-base-sources.md, "Links"): stores a link
 * collection and queues its reading; answers at once with `insertLen: 0`. The page is fetched by the training, under the
 * link rules; a link that can never be fetched (another scheme, credentials, a literal refused address) is refused now.
 */
export async function createLinkCollection(
  input: { body: CreateLinkBody; caller: CallerContext },
  deps: CreateLinkDeps,
): Promise<{ collectionId: string; results: { insertLen: number } }> {
  const { body, caller } = input;
  const link = body.link;
  if (!link) throw datasetErrors.missingParams('link is required');
  let url: URL;
  try {
    url = parseLink(link);
  } catch (error) {
    throw asRequestError(error);
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) && !addressAllowed(host, host, deps.allowedHosts)) {
    throw datasetErrors.invalidParams(
      "the link's address is refused (link-local, metadata or loopback; see LINK_ALLOWED_HOSTS)",
    );
  }
  const selector = body.metadata?.webPageSelector;
  const { collectionId } = await deps.collections.createSourceCollection({
    teamId: caller.teamId,
    tmbId: caller.tmbId,
    datasetId: body.datasetId,
    parentId: body.parentId,
    // FastGPT names a link collection after its link; the training may rename it after the page's title.
    name: body.name?.trim() || link,
    type: 'link',
    rawLink: link,
    settings: chunkSettingsOf(body),
    metadata: {
      ...(body.metadata ?? {}),
      ...(typeof selector === 'string' && selector.trim() ? { webPageSelector: selector.trim() } : {}),
    },
    ...(body.tags ? { tags: body.tags } : {}),
  });
  return { collectionId, results: { insertLen: 0 } };
}
