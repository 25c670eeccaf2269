import type { APIGatewayProxyResult } from 'aws-lambda';
import type { CallerContext } from '#shared/http';
import type { SourceFileStore } from '#shared/kb/contract';
import type { SourceCollections } from '#shared/kb/sources/collections-port';
import { sourceErrors } from '#shared/kb/sources/errors';
import { contentDisposition, type PresigningStore } from '#shared/kb/sources/file-stores';
import { parseLink } from '#shared/kb/sources/link';
import { SOURCE_PATH, signSourceToken, verifySourceToken } from '#shared/kb/sources/source-links';
import { idField } from '#shared/schemas/dataset-fields';
import * as z from '#shared/zod';

/** FastGPT's body of collection/read (readCollectionSourceBody); its share-link fields are accepted and unused. */
export const readCollectionBodySchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.object({ collectionId: idField('collectionId') }),
);
export type ReadCollectionBody = z.output<typeof readCollectionBodySchema>;

/** The query of the served link. */
export const sourceQuerySchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.object({ token: z.optional(z.string().check(z.maxLength(1024))) }),
);

export interface ReadCollectionDeps {
  readonly collections: Pick<SourceCollections, 'findCollection'>;
  /** The source-link key (shared/kb/sources/source-links.ts). */
  readonly linkKey: () => Promise<Buffer>;
  readonly now: () => Date;
}

/**
 * FastGPT's POST /api/core/dataset/collection/read (docs/knowledge-base-sources.md, "Reading a source"):
 * `{type: "url", value}`, a link to this API's source route that works for 30 minutes without the caller's token;
 * `value` is "" for a collection with no source (a folder, an empty collection), as FastGPT answers.
 */
export async function readCollection(
  input: { body: ReadCollectionBody; caller: CallerContext; baseUrl: string },
  deps: ReadCollectionDeps,
): Promise<{ type: 'url'; value: string }> {
  const collection = await deps.collections.findCollection(input.caller.teamId, input.body.collectionId);
  if (!collection) throw sourceErrors.unExistCollection('The collection does not exist');
  if (!collection.fileId && !collection.rawLink) return { type: 'url', value: '' };
  const token = signSourceToken(
    await deps.linkKey(),
    { teamId: input.caller.teamId, collectionId: collection.id },
    deps.now(),
  );
  return { type: 'url', value: `${input.baseUrl}${SOURCE_PATH}?token=${token}` };
}

export interface ServeSourceDeps extends ReadCollectionDeps {
  readonly store: Pick<SourceFileStore, 'get'> & Partial<PresigningStore>;
}

/** How long the bucket's own link lives once the signed link was checked (the redirect is followed at once). */
const PRESIGNED_SECONDS = 300;

const TEXT_TYPES = /^(text\/|application\/(json|xml))/;

/** The headers of a served customer file: never cached, never sniffed, never run as a page of this API's origin. */
function fileHeaders(contentType: string, name: string): Record<string, string> {
  return {
    'Content-Type': contentType,
    'Content-Disposition': contentDisposition(name, true),
    'Cache-Control': 'private, no-store',
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': "sandbox; default-src 'none'; style-src 'unsafe-inline'",
    'Referrer-Policy': 'no-referrer',
  };
}

const redirect = (location: string): APIGatewayProxyResult => ({
  statusCode: 302,
  headers: {
    Location: location,
    'Content-Type': 'text/plain',
    'Cache-Control': 'private, no-store',
    'Referrer-Policy': 'no-referrer',
  },
  body: '',
});

/**
 * GET /api/core/dataset/collection/source?token=… (no authorizer: the token is the proof): a link collection redirects
 * to its link; a stored file redirects to a short-lived link of the bucket (deployed) or is served here (`npm start`).
 */
export async function serveSource(token: string | undefined, deps: ServeSourceDeps): Promise<APIGatewayProxyResult> {
  const checked = token ? verifySourceToken(await deps.linkKey(), token, deps.now()) : undefined;
  if (!checked?.ok) {
    throw sourceErrors.unAuthDatasetFile(
      checked?.reason === 'expired' ? 'The link has expired: read the collection again' : 'The link is not valid',
    );
  }
  const { teamId, collectionId } = checked.claim;
  const collection = await deps.collections.findCollection(teamId, collectionId);
  if (!collection) throw sourceErrors.unExistCollection('The collection does not exist');
  if (collection.fileId) {
    if (deps.store.presignGet) {
      return redirect(
        await deps.store.presignGet(teamId, collection.fileId, { name: collection.name }, PRESIGNED_SECONDS),
      );
    }
    const file = await deps.store.get(teamId, collection.fileId);
    if (!file) throw sourceErrors.unExistCollection('The collection has no stored file');
    const text = TEXT_TYPES.test(file.contentType);
    return {
      statusCode: 200,
      headers: fileHeaders(file.contentType, file.name),
      body: Buffer.from(file.bytes).toString(text ? 'utf8' : 'base64'),
      isBase64Encoded: !text,
    };
  }
  if (collection.rawLink) {
    try {
      return redirect(parseLink(collection.rawLink).toString());
    } catch {
      throw sourceErrors.unExistCollection('The collection has no readable source');
    }
  }
  throw sourceErrors.unExistCollection('The collection has no source');
}
