import type { WriteRequest } from '#shared/repositories/batch';
import type { FullTextDoc } from '../contract.ts';
import { batchSk, blockPrefix, docSk, encodePostings, newBatchId, type Posting } from './postings.ts';
import { termFrequencies } from './segment.ts';

/*
 * The items one `add` of the full-text index writes (shared/kb/search/full-text-index.ts describes them): each chunk's
 * `d#` item, and per write batch its postings blocks and its `b#` item. Batches are cut small enough for DynamoDB's
 * 400 KB item (docs/knowledge-base-search.md, "Full text").
 */

/**
 * The most chunks one write batch indexes: its blocks hold a line per chunk (about 70 bytes: 7,000 chunks, a 7 MB
 * text, would pass DynamoDB's 400 KB item in a block of a term found in every chunk), its batch item each chunk id.
 */
export const MAX_BATCH_CHUNKS = 1_000;
/** The most bytes of distinct terms a batch item lists (its `terms`), under the 400 KB item with its ids. */
export const MAX_BATCH_TERM_BYTES = 256 * 1024;

interface Batch {
  readonly id: string;
  readonly blocks: Map<string, Posting[]>;
  readonly ids: string[];
  termBytes: number;
}

/**
 * The write requests of `docs` (distinct chunks) in partition `pk`, each term's df among them per batch (for the
 * sketch: a term in several batches counts in each) and the sum of their lengths.
 */
export function indexBatches(
  pk: string,
  docs: readonly FullTextDoc[],
): { requests: WriteRequest[]; termCounts: (readonly [string, number])[]; totalLength: number } {
  const batches: Batch[] = [];
  const requests: WriteRequest[] = [];
  let totalLength = 0;
  for (const doc of docs) {
    let current = batches.at(-1);
    if (current === undefined || current.ids.length >= MAX_BATCH_CHUNKS || current.termBytes >= MAX_BATCH_TERM_BYTES) {
      current = { id: newBatchId(), blocks: new Map(), ids: [], termBytes: 0 };
      batches.push(current);
    }
    current.ids.push(doc.dataId);
    const { tf, length } = termFrequencies(doc.texts);
    totalLength += length;
    for (const [term, count] of tf) {
      let block = current.blocks.get(term);
      if (block === undefined) {
        block = [];
        current.blocks.set(term, block);
        // UTF-8 takes at most 3 bytes per UTF-16 unit; and the line break between terms.
        current.termBytes += term.length * 3 + 1;
      }
      block.push({
        dataId: doc.dataId,
        collectionId: doc.collectionId,
        chunkIndex: doc.chunkIndex ?? -1,
        tf: count,
        length,
      });
    }
    // `sketch`: counted in the sketch, so its removal subtracts it (an index older than the sketch added nothing).
    const item = {
      pk,
      sk: docSk(doc.dataId),
      terms: [...tf.keys()].join('\n'),
      length,
      batch: current.id,
      sketch: true,
    };
    requests.push({ PutRequest: { Item: item } });
  }
  const termCounts: (readonly [string, number])[] = [];
  for (const batch of batches) {
    for (const [term, postings] of batch.blocks) {
      termCounts.push([term, postings.length]);
      requests.push({
        PutRequest: { Item: { pk, sk: `${blockPrefix(term)}${batch.id}`, p: encodePostings(postings) } },
      });
    }
    const terms = [...batch.blocks.keys()].join('\n');
    requests.push({ PutRequest: { Item: { pk, sk: batchSk(batch.id), terms, ids: new Set(batch.ids) } } });
  }
  return { requests, termCounts, totalLength };
}
