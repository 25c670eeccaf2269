import type { AllowList } from '../../allow-list.ts';
import { SourceError, type SourceFileStore, type SourceReader } from '../contract.ts';
import { type FileKind, fileKind, fileText } from './files.ts';
import { type LinkFetchOptions, readLinkSource } from './link.ts';

/*
 * Reads a link or a stored file to text for the training core (the contract's SourceReader). A stored file is read
 * from the team's own prefix of the source bucket only: the reader is made for one team (`forTeam`), or given the
 * team with the source, never a bare file id. Text collections kept as files may carry a name without an extension:
 * their stored content type then says how to read them.
 */

export interface SourceReaderDeps {
  readonly store: SourceFileStore;
  readonly allowedHosts: AllowList;
  /** Link limits and, in tests, a resolver. */
  readonly link?: Omit<LinkFetchOptions, 'allowedHosts'>;
}

/** A source as the training core hands it, with the team whose bucket prefix holds its file. */
export interface TeamSource {
  readonly teamId?: string;
  readonly rawLink?: string;
  readonly fileId?: string;
  readonly name: string;
  /** FastGPT's `metadata.webPageSelector`: read only the page's matching elements. */
  readonly webPageSelector?: string;
}

const BY_CONTENT_TYPE: Record<string, FileKind> = {
  'text/plain': 'txt',
  'text/markdown': 'md',
  'text/html': 'html',
  'text/csv': 'csv',
  'application/pdf': 'pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
};

/** The name to parse a stored file under: its own when it names a supported type, else one its content type gives. */
function parseName(name: string, contentType: string): string {
  try {
    fileKind(name);
    return name;
  } catch {
    const kind = BY_CONTENT_TYPE[contentType.split(';')[0]?.trim().toLowerCase() ?? ''];
    if (!kind) throw new SourceError('the stored file is of a type the product does not read');
    return `${name}.${kind}`;
  }
}

/** The text of a source (and, for a page, its title: the collection's name when the user gave none). */
export async function readSource(
  source: TeamSource,
  deps: SourceReaderDeps,
): Promise<{ text: string; title?: string }> {
  if (source.fileId) {
    if (!source.teamId) throw new SourceError('the source file has no team');
    const stored = await deps.store.get(source.teamId, source.fileId);
    if (!stored) throw new SourceError('the source file is no longer stored');
    const text = await fileText({
      name: parseName(stored.name, stored.contentType),
      bytes: stored.bytes,
      contentType: stored.contentType,
    });
    return { text };
  }
  if (source.rawLink) {
    return readLinkSource(source.rawLink, {
      ...deps.link,
      allowedHosts: deps.allowedHosts,
      ...(source.webPageSelector ? { selector: source.webPageSelector } : {}),
    });
  }
  throw new SourceError('the collection has neither a link nor a file to read');
}

/** The contract's SourceReader; `forTeam` binds the team whose files it may read. */
export function createSourceReader(deps: SourceReaderDeps): SourceReader & { forTeam(teamId: string): SourceReader } {
  return {
    read: (source) => readSource(source as TeamSource, deps),
    forTeam: (teamId) => ({ read: (source) => readSource({ ...source, teamId }, deps) }),
  };
}
