import type { CallerContext } from '#shared/http';
import { requireCollection } from '#shared/kb/collections';
import { readable } from '#shared/kb/data';
import type { KbContentRepository } from '#shared/repositories/kb-content';
import type { CollectionIdInput } from '#shared/schemas/kb-content';

/*
 * FastGPT's POST /api/core/dataset/collection/export (docs/knowledge-base-api.md, "Export"; FastGPT's handler
 * projects/app/src/pages/api/core/dataset/collection/export.ts and its escapeCsvField in
 * packages/service/common/file/csv.ts, labring/FastGPT at 06ab0a7c): a collection's chunks as CSV, in chunk order, at
 * most 50,000. The header FastGPT writes, `index,content` after a byte-order mark, heads the columns q and a; the
 * backup import (shared/kb/sources/backup.ts) reads the file back as FastGPT does.
 */

/** Chunks FastGPT's export writes at most. */
export const MAX_EXPORT_ROWS = 50_000;

/** FastGPT's first line: a byte-order mark (so a spreadsheet reads UTF-8), then its header. */
export const EXPORT_HEADER = '\uFEFFindex,content';

/**
 * A field as FastGPT's export writes it: a text a spreadsheet would take for a formula (starting with `=`, `+`, `-`,
 * `@` or `|`) gets a `'` in front, and a text with a comma, quote or line break is quoted with its quotes doubled.
 */
export function csvField(text: string): string {
  const safe = /^[=+\-@|]/.test(text) ? `'${text}` : text;
  return /[",\n\r]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

export interface ExportDeps {
  readonly content: Pick<KbContentRepository, 'findCollection' | 'chunkPagesOf'>;
}

/**
 * The caller's collection, checked before anything is answered (an unknown id or another team's is FastGPT's
 * 501003 in the API's envelope), then its CSV as it is read, a Query page at a time: memory stays at a page whatever
 * the collection's size.
 */
export async function exportCollection(
  input: { body: CollectionIdInput; caller: CallerContext },
  deps: ExportDeps,
): Promise<AsyncIterable<string>> {
  const collection = await requireCollection(deps.content, input.caller.teamId, input.body.collectionId);
  async function* csv(): AsyncGenerator<string> {
    yield EXPORT_HEADER;
    let rows = 0;
    for await (const page of deps.content.chunkPagesOf(collection.teamId, collection.datasetId, collection.id)) {
      const lines: string[] = [];
      for (const chunk of page) {
        if (rows === MAX_EXPORT_ROWS) break;
        if (!readable(chunk, collection)) continue;
        lines.push(`\n${csvField(chunk.q)},${csvField(chunk.a)}`);
        rows++;
      }
      if (lines.length > 0) yield lines.join('');
      if (rows === MAX_EXPORT_ROWS) return;
    }
  }
  return csv();
}
