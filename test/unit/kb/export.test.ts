import { describe, expect, it } from 'vitest';
import {
  csvField,
  EXPORT_HEADER,
  type ExportDeps,
  exportCollection,
  MAX_EXPORT_ROWS,
} from '#functions/kb-export-collection/export-collection';
import { DatasetApiError } from '#shared/errors';
import { newObjectId } from '#shared/ids';
import type { ChunkRecord } from '#shared/kb/contract';
import { backupItems } from '#shared/kb/sources/backup';
import type { StoredCollection } from '#shared/repositories/kb-content';
import { chunkOf, storeKnowledgeBase, storeTextCollection, useKbContentTables } from '#test/support/kb-content';

// functions/kb-export-collection/export-collection.ts (docs/knowledge-base-api.md, "Export").

const TEAM = 'team-export';
const caller = { scope: 'dataset', teamId: TEAM, tmbId: 'member-1', tokenId: 't' } as const;

async function text(csv: AsyncIterable<string>): Promise<string> {
  let out = '';
  for await (const part of csv) out += part;
  return out;
}

describe('csvField', () => {
  it("writes a field as FastGPT's escapeCsvField does", () => {
    expect(csvField('plain text')).toBe('plain text');
    expect(csvField('a, b')).toBe('"a, b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('line 1\nline 2')).toBe('"line 1\nline 2"');
    expect(csvField('=SUM(A1)')).toBe("'=SUM(A1)");
    expect(csvField('- item, two')).toBe(`"'- item, two"`);
    expect(csvField('|cmd')).toBe("'|cmd");
    expect(csvField('')).toBe('');
  });
});

const world = useKbContentTables();

describe('exportCollection', () => {
  it("writes the collection's readable chunks in chunk order under FastGPT's header, read back by the backup import", async () => {
    const dataset = await storeKnowledgeBase(world, TEAM);
    const collection = await storeTextCollection(world, dataset);
    await world.content.putChunks([
      chunkOf(collection, 2, 'Third, with "quotes"', 'line 1\nline 2'),
      chunkOf(collection, 0, '什么是向量检索？', '用向量找相近的文本。'),
      chunkOf(collection, 1, 'Not ready yet', '', { ready: false }),
      chunkOf(collection, 3, 'Of an old generation', '', { generation: collection.generation - 1 }),
      chunkOf(collection, 4, 'Pushed by hand in another generation', 'kept', {
        generation: collection.generation + 5,
        pushed: true,
      }),
    ]);

    const csv = await text(
      await exportCollection({ body: { collectionId: collection.id }, caller }, { content: world.content }),
    );

    expect(csv.startsWith(`${EXPORT_HEADER}\n`)).toBe(true);
    expect(backupItems(csv)).toEqual([
      { q: '什么是向量检索？', a: '用向量找相近的文本。', indexes: [] },
      { q: 'Third, with "quotes"', a: 'line 1\nline 2', indexes: [] },
      { q: 'Pushed by hand in another generation', a: 'kept', indexes: [] },
    ]);
  });

  it("answers 501003 for another team's collection or an unknown one, before writing anything", async () => {
    const dataset = await storeKnowledgeBase(world, 'team-other');
    const theirs = await storeTextCollection(world, dataset);

    for (const collectionId of [theirs.id, newObjectId()]) {
      const refused = await exportCollection({ body: { collectionId }, caller }, { content: world.content }).catch(
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(DatasetApiError);
      expect(refused).toMatchObject({ code: 501003 });
    }
  });

  it('stops at 50,000 rows and reads no page beyond them', async () => {
    const collection = { id: 'c', teamId: TEAM, datasetId: 'd', generation: 1 } as StoredCollection;
    let pagesRead = 0;
    const page = (n: number) =>
      Array.from({ length: 1000 }, (_, i) => ({ q: `q${n * 1000 + i}`, a: '', generation: 1, ready: true }));
    const deps: ExportDeps = {
      content: {
        findCollection: async () => collection,
        async *chunkPagesOf() {
          for (let n = 0; ; n++) {
            pagesRead++;
            yield page(n) as unknown as ChunkRecord[];
          }
        },
      },
    };

    const csv = await text(await exportCollection({ body: { collectionId: 'c' }, caller }, deps));

    const lines = csv.split('\n');
    expect(lines).toHaveLength(MAX_EXPORT_ROWS + 1);
    expect(lines.at(-1)).toBe(`q${MAX_EXPORT_ROWS - 1},`);
    expect(pagesRead).toBe(MAX_EXPORT_ROWS / 1000);
  });
});
