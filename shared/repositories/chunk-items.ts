import { type ChunkRecord, defaultIndexText } from '#shared/kb/contract';

/*
 * A chunk's `default` index holds the chunk's own text again (q, or q and a: FastGPT's DatasetDataIndexItemType). It is
 * stored without its `text` when that is the text made from q and a, and given it back on reading: the chunk item is
 * about half as large (DynamoDB bills a write by the item's size, a kilobyte a unit), the same record to every reader.
 * An item that keeps the text (written before 2026-11-28, or a default index of other text) is read as it is.
 */

/** The item a chunk is stored as. */
export function chunkItem(chunk: ChunkRecord): Record<string, unknown> {
  const own = defaultIndexText(chunk.q, chunk.a);
  return {
    ...chunk,
    indexes: chunk.indexes.map((index) =>
      index.type === 'default' && index.text === own ? { type: index.type, dataId: index.dataId } : { ...index },
    ),
  };
}

/** The chunk a stored item holds, default index texts given back. */
export function chunkOfItem(item: Record<string, unknown>): ChunkRecord {
  const chunk = item as unknown as ChunkRecord;
  if (!Array.isArray(chunk.indexes) || chunk.indexes.every((index) => typeof index.text === 'string')) return chunk;
  const own = defaultIndexText(String(chunk.q ?? ''), String(chunk.a ?? ''));
  return {
    ...chunk,
    indexes: chunk.indexes.map((index) =>
      typeof index.text === 'string' || index.type !== 'default' ? index : { ...index, text: own },
    ),
  };
}
