import { describe, expect, it } from 'vitest';
import { newObjectId } from '#shared/ids';
import { splitTextAsFastGpt } from '#shared/kb/chunking';
import { storeCollection } from '#shared/kb/collections';
import { SourceError } from '#shared/kb/contract';
import { backupItems, MAX_BACKUP_ROWS } from '#shared/kb/sources/backup';
import { train } from '#shared/kb/training';
import { MAX_BACKUP_INDEX_CHARS } from '#shared/kb/training-items';
import type { TrainingMessage } from '#shared/kb/training-queue';
import {
  memoryFileStore,
  recordingIndexWriter,
  scriptedEmbedder,
  storeKnowledgeBase,
  useKbContentTables,
} from '#test/support/kb-content';

// shared/kb/sources/backup.ts and the training of a backup collection (docs/knowledge-base-sources.md, "Backup and template import").

describe('backupItems', () => {
  it('reads the older q,a,indexes header: every column from indexes on is an index text', () => {
    const csv = 'q,a,indexes\n"What is RRF?","Rank fusion.","rank fusion","融合排序"\n"Only q",,\n,,\n';

    expect(backupItems(csv)).toEqual([
      { q: 'What is RRF?', a: 'Rank fusion.', indexes: ['rank fusion', '融合排序'] },
      { q: 'Only q', a: '', indexes: [] },
    ]);
  });

  it('leaves out the metadata columns between a and indexes, and reads every column from the third without the header', () => {
    expect(backupItems('q,a,source,indexes\nx,y,wiki,i1,i2\n')).toEqual([{ q: 'x', a: 'y', indexes: ['i1', 'i2'] }]);
    expect(backupItems('question,answer,extra\nx,y,i1\n')).toEqual([{ q: 'x', a: 'y', indexes: ['i1'] }]);
  });

  it('reads the newer named columns in any order, several index columns, metadata left out', () => {
    const csv = 'index,a,metadata,q,index\n"idx 1","an answer","{""k"":1}","a question","idx 2"\n';

    expect(backupItems(csv)).toEqual([{ q: 'a question', a: 'an answer', indexes: ['idx 1', 'idx 2'] }]);
  });

  it('keeps quoted line breaks, commas and quotes, a BOM and CRLF lines as FastGPT writes them', () => {
    const csv = '\uFEFFq,a,indexes\r\n"line 1\nline 2","a, ""quoted""",\r\n';

    expect(backupItems(csv)).toEqual([{ q: 'line 1\nline 2', a: 'a, "quoted"', indexes: [] }]);
  });

  it("reads FastGPT's own export (header index,content) as q and a, with no index text of its own", () => {
    // projects/app/src/pages/api/core/dataset/collection/export.ts (labring/FastGPT at 06ab0a7c) writes this.
    const csv = '\uFEFFindex,content\n"What is RRF?","Rank fusion."\n"只有问题",""\n';

    expect(backupItems(csv)).toEqual([
      { q: 'What is RRF?', a: 'Rank fusion.', indexes: [] },
      { q: '只有问题', a: '', indexes: [] },
    ]);
  });

  it('reads a named header without an a column', () => {
    expect(backupItems('index,q\nidx,a question\n')).toEqual([{ q: 'a question', a: '', indexes: ['idx'] }]);
  });

  it('reads a named header whose first name follows a BOM', () => {
    const csv = '\uFEFFa,q,index\n"an answer","a question","idx"\n';

    expect(backupItems(csv)).toEqual([{ q: 'a question', a: 'an answer', indexes: ['idx'] }]);
  });

  it('refuses a file without a chunk, and one of more rows than an export writes', () => {
    expect(() => backupItems('q,a,indexes\n,,\n')).toThrow(SourceError);
    expect(() => backupItems('')).toThrow(SourceError);
    const many = `q,a\n${'x,y\n'.repeat(MAX_BACKUP_ROWS + 1)}`;
    expect(() => backupItems(many)).toThrow(/more than 50,000 chunks/);
  });
});

const world = useKbContentTables();
const TEAM = 'team-backup';

describe('training a backup collection', () => {
  it('makes a chunk of each row as it is, with its own index texts embedded beside the default one', async () => {
    const dataset = await storeKnowledgeBase(world, TEAM);
    const files = memoryFileStore();
    const fileId = newObjectId();
    const long = 'Long answers are cut into index pieces. '.repeat(70);
    const csv = `q,a,indexes\n"What is RRF?","Reciprocal rank fusion.","rank fusion","融合排序"\n"${long}",,\n`;
    await files.put({ teamId: TEAM, fileId, name: 'faq.csv', contentType: 'text/csv', bytes: Buffer.from(csv) });
    const sent: TrainingMessage[] = [];
    const collection = await storeCollection(
      {
        teamId: TEAM,
        tmbId: 'member-1',
        datasetId: dataset.id,
        parentId: null,
        name: 'faq.csv',
        type: 'file',
        fileId,
        settings: { trainingType: 'backup', chunkSize: 1000 },
        train: true,
      },
      {
        datasets: world.datasets,
        content: world.content,
        queue: { send: async (m) => void sent.push(m) },
        now: () => new Date(),
      },
    );
    const index = recordingIndexWriter();

    await train(sent[0] as TrainingMessage, {
      content: world.content,
      subjects: world.subjects,
      files,
      split: splitTextAsFastGpt,
      embedder: scriptedEmbedder(),
      index,
      newId: () => newObjectId(),
      now: () => new Date(),
      defaults: { vectorModel: 'text-embedding-3-small', agentModel: 'gpt-4o-mini' },
      sleep: async () => {},
    });

    const chunks = await world.content.chunksOf(TEAM, dataset.id, collection.id);
    expect(chunks.map((c) => c.q)).toEqual(['What is RRF?', long.trim()]);
    expect(chunks[0]?.indexes.map(({ type, text }) => ({ type, text }))).toEqual([
      { type: 'default', text: 'What is RRF?\nReciprocal rank fusion.' },
      { type: 'custom', text: 'rank fusion' },
      { type: 'custom', text: '融合排序' },
    ]);
    const pieces = chunks[1]?.indexes ?? [];
    expect(pieces.length).toBeGreaterThan(1);
    const visible = (text: string) => text.replace(/\s/g, '').length;
    // The chunker keeps a sentence whole, so a piece may run somewhat over the size; never to twice it.
    expect(pieces.every((i) => i.type === 'default' && visible(i.text) < 2 * MAX_BACKUP_INDEX_CHARS)).toBe(true);
    expect(pieces.map((i) => i.text).join(' ')).toBe(long.trim());
    expect(index.vectors.size).toBe(3 + pieces.length);
    expect(index.fullText.get(chunks[0]?.id as string)?.texts).toContain('融合排序');
    const stored = await world.content.getCollection(TEAM, dataset.id, collection.id);
    expect(stored).toMatchObject({ status: 'ready', dataAmount: 2, settings: { trainingType: 'backup' } });
  });
});
