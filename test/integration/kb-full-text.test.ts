import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTable, localDynamoClient } from '#infra/local/dynamo-engine';
import { newObjectId } from '#shared/ids';
import { DynamoChunkReader } from '#shared/kb/chunk-reader';
import { datasetKey, type FullTextDoc } from '#shared/kb/contract';
import { DynamoFullTextIndex } from '#shared/kb/search/full-text-index';
import { postingsIn } from '#shared/kb/search/postings';
import { segment } from '#shared/kb/search/segment';
import { readSketch, sketchCells } from '#shared/kb/search/term-sketch';
import { TABLES } from '#shared/tables';
import { startTestEngine, type TestEngine, uniqueTableName } from '#test/support/dynamo-engine';
import { chunkItem, collectionItem, putItem, putItems } from '#test/support/kb-search-items';

// Real passages, written for these tests: each question below is answered by exactly one of them.
const PASSAGES = {
  greatWall:
    '长城是中国古代的军事防御工程，东起山海关，西至嘉峪关，全长超过两万公里。修筑长城的历史可以追溯到春秋战国时期，明朝对长城进行了大规模的修缮。',
  panda:
    '大熊猫主要生活在四川、陕西和甘肃的山区竹林中，以竹子为主要食物。成年大熊猫每天要花十多个小时进食，一天可以吃掉十几公斤竹子。',
  photosynthesisZh:
    '光合作用是绿色植物利用阳光，把二氧化碳和水转化为葡萄糖并释放氧气的过程。这个过程主要发生在叶片细胞的叶绿体中。',
  retrieval:
    '向量检索把文本转换成向量，通过计算余弦相似度找到语义相近的段落；全文检索则根据分词后的关键词匹配程度来排序。',
  eiffel:
    "The Eiffel Tower was completed in 1889 for the World's Fair in Paris. It is about 330 metres tall and was the tallest man-made structure in the world for 41 years.",
  photosynthesisEn:
    'Photosynthesis converts light energy into chemical energy. Plants take in carbon dioxide and water, make sugar, and release oxygen as a by-product.',
  dynamodb:
    'DynamoDB is a serverless key-value and document database. Every table needs a partition key, and an optional sort key orders the items within a partition.',
  honey:
    'Honey never spoils when it is stored in a sealed container: its low water content and its acidity keep bacteria and moulds from growing.',
  fuji: '富士山は日本で最も高い山で、標高は3776メートルです。山梨県と静岡県にまたがっています。',
} as const;
type PassageName = keyof typeof PASSAGES;

/** What the `n` item counts (its version aside): chunks, their length, the sketched chunks and the sketch's counters. */
function countersOf(item: Record<string, unknown> | undefined) {
  return { docs: item?.docs, total: item?.total, s2d: item?.s2d, sketch: readSketch(item) };
}

let engine: TestEngine;
let client: DynamoDBClient;
let documents: DynamoDBDocumentClient;
let termsTable: string;
let contentTable: string;

beforeAll(async () => {
  engine = await startTestEngine();
  client = localDynamoClient(engine);
  documents = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  termsTable = uniqueTableName('kb-terms');
  contentTable = uniqueTableName('kb-content');
  await ensureTable(client, termsTable, TABLES.kbTerms);
  await ensureTable(client, contentTable, TABLES.kbContent);
});
afterAll(async () => {
  client?.destroy();
  await engine?.close();
});

/** Every item of a knowledge base's partition in kbTerms. */
async function termItems(teamId: string, datasetId: string): Promise<Record<string, unknown>[]> {
  const out = await documents.send(
    new QueryCommand({
      TableName: termsTable,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': datasetKey(teamId, datasetId) },
    }),
  );
  return out.Items ?? [];
}

/** Every item of a knowledge base's partition in kbTerms, page after page. */
async function allTermItems(teamId: string, datasetId: string): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const out = await documents.send(
      new QueryCommand({
        TableName: termsTable,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': datasetKey(teamId, datasetId) },
        ...(ExclusiveStartKey ? { ExclusiveStartKey } : {}),
      }),
    );
    items.push(...(out.Items ?? []));
    ExclusiveStartKey = out.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
}

/** A knowledge base holding the passages, one chunk each, indexed and readable. */
async function knowledgeBase(names: readonly PassageName[] = Object.keys(PASSAGES) as PassageName[]) {
  const teamId = newObjectId();
  const datasetId = newObjectId();
  const collection = collectionItem(teamId, datasetId, { name: 'passages.txt', fileId: 'file-1' });
  const chunks = names.map((name, i) => chunkItem(collection, i, PASSAGES[name]));
  await putItems(documents, contentTable, [collection, ...chunks]);
  const index = new DynamoFullTextIndex(documents, termsTable);
  const docs: FullTextDoc[] = chunks.map((c) => ({
    dataId: c.id,
    collectionId: c.collectionId,
    chunkIndex: c.chunkIndex,
    texts: [c.q, c.a],
  }));
  await index.add(teamId, datasetId, docs);
  const idOf = (name: PassageName) => chunks[names.indexOf(name)]!.id;
  return { teamId, datasetId, collection, chunks, index, idOf };
}

describe('word segments', () => {
  it('splits Chinese, Japanese and English into words, folding width and case', () => {
    expect(segment('知识库的向量检索')).toEqual(['知识', '库', '向量', '检索']);
    expect(segment('ＡＰＩ Key')).toEqual(['api', 'key']);
    expect(segment('東京スカイツリー')).toContain('東京');
    expect(segment("the base's index")).toEqual(['base', 'index']);
  });
});

describe('full-text recall (BM25 on kbTerms)', () => {
  it.each([
    ['大熊猫吃什么？', 'panda'],
    ['长城有多长', 'greatWall'],
    ['植物怎样释放氧气', 'photosynthesisZh'],
    ['余弦相似度怎么找到相近段落', 'retrieval'],
    ['How tall is the Eiffel Tower?', 'eiffel'],
    ['Does honey go bad in a sealed jar?', 'honey'],
    ['What is the partition key of a DynamoDB table?', 'dynamodb'],
    ['富士山の標高は？', 'fuji'],
  ] as const)('answers %s with the passage about it first', async (question, expected) => {
    const kb = await knowledgeBase();
    const found = await kb.index.search(kb.teamId, kb.datasetId, question, 10);
    expect(found[0]?.dataId).toBe(kb.idOf(expected));
    expect(found[0]?.chunkIndex).toBe(Object.keys(PASSAGES).indexOf(expected));
    expect(found.every((f, i) => i === 0 || f.score <= found[i - 1]!.score)).toBe(true);
  });

  it('ranks the English photosynthesis passage first for oxygen and plants, the Chinese one for 氧气', async () => {
    const kb = await knowledgeBase();
    const english = await kb.index.search(kb.teamId, kb.datasetId, 'plants release oxygen', 3);
    const chinese = await kb.index.search(kb.teamId, kb.datasetId, '释放氧气', 3);
    expect(english[0]?.dataId).toBe(kb.idOf('photosynthesisEn'));
    expect(chinese[0]?.dataId).toBe(kb.idOf('photosynthesisZh'));
  });

  it('finds nothing for words no chunk holds, and nothing in another knowledge base', async () => {
    const kb = await knowledgeBase(['panda']);
    const other = await knowledgeBase(['honey']);
    expect(await kb.index.search(kb.teamId, kb.datasetId, 'quantum chromodynamics', 10)).toEqual([]);
    expect(await other.index.search(other.teamId, other.datasetId, '大熊猫', 10)).toEqual([]);
    expect(await kb.index.search(kb.teamId, kb.datasetId, 'honey', 10)).toEqual([]);
  });

  it('forgets removed chunks: counters corrected, and their batch deleted once no chunk of it is left', async () => {
    const kb = await knowledgeBase(['panda', 'honey']);
    await kb.index.remove(kb.teamId, kb.datasetId, [kb.idOf('panda')]);
    expect(await kb.index.search(kb.teamId, kb.datasetId, '大熊猫', 10)).toEqual([]);
    expect((await kb.index.search(kb.teamId, kb.datasetId, 'honey', 10))[0]?.dataId).toBe(kb.idOf('honey'));

    await kb.index.remove(kb.teamId, kb.datasetId, [kb.idOf('honey')]);
    const left = await termItems(kb.teamId, kb.datasetId);
    // Only the counters stay, all at zero: no postings block, no chunk, no batch item.
    expect(left.map((i) => i.sk)).toEqual(['n']);
    expect(countersOf(left[0])).toEqual({ docs: 0, total: 0, s2d: 0, sketch: {} });
  });

  it('cuts a removed chunk out of the blocks its batch shares with chunks that stay', async () => {
    const kb = await knowledgeBase(['photosynthesisEn', 'honey', 'eiffel']);

    await kb.index.remove(kb.teamId, kb.datasetId, [kb.idOf('honey')]);

    const blocks = (await termItems(kb.teamId, kb.datasetId)).filter((i) => String(i.sk).startsWith('t#'));
    expect(blocks.length).toBeGreaterThan(0);
    for (const block of blocks) {
      const lines = String(block.p).split('\n');
      expect(lines.some((line) => line.startsWith(`${kb.idOf('honey')} `))).toBe(false);
      // A block's postings count is its line count (no separate count is written).
      expect(block.c).toBeUndefined();
      expect(postingsIn([block])).toBe(lines.length);
    }
    // "water" was in the honey and the photosynthesis passages: its block keeps one line.
    const water = blocks.find((b) => String(b.sk).startsWith('t#water#'));
    expect(String(water?.p).split('\n')).toHaveLength(1);
    expect(blocks.some((b) => String(b.sk).startsWith('t#honey#'))).toBe(false);
  });

  it('ranks after removals exactly as an index that only ever held the chunks left', async () => {
    const kb = await knowledgeBase();
    const extra = ['honey', 'photosynthesisEn'].map((name, i) => ({
      dataId: newObjectId(),
      collectionId: kb.collection.id,
      chunkIndex: 100 + i,
      texts: [PASSAGES[name as PassageName]],
    }));
    await kb.index.add(kb.teamId, kb.datasetId, extra);
    const gone: PassageName[] = ['honey', 'panda', 'retrieval'];

    // Two removals in one batch at once (each rewrites blocks the other also rewrites), and a whole batch.
    await Promise.all([
      kb.index.remove(kb.teamId, kb.datasetId, [kb.idOf('honey')]),
      kb.index.remove(kb.teamId, kb.datasetId, [kb.idOf('panda'), kb.idOf('retrieval')]),
      kb.index.remove(
        kb.teamId,
        kb.datasetId,
        extra.map((e) => e.dataId),
      ),
    ]);
    const fresh = new DynamoFullTextIndex(documents, termsTable);
    const freshDataset = newObjectId();
    const kept = (Object.keys(PASSAGES) as PassageName[]).filter((name) => !gone.includes(name));
    await fresh.add(
      kb.teamId,
      freshDataset,
      kept.map((name) => ({
        dataId: kb.idOf(name),
        collectionId: kb.collection.id,
        chunkIndex: Object.keys(PASSAGES).indexOf(name),
        texts: [PASSAGES[name]],
      })),
    );

    for (const question of ['plants release oxygen and water', 'honey', '长城有多长', 'the tallest tower in Paris']) {
      const after = await kb.index.search(kb.teamId, kb.datasetId, question, 10);
      const expected = await fresh.search(kb.teamId, freshDataset, question, 10);
      expect(after.map((f) => f.dataId)).toEqual(expected.map((f) => f.dataId));
      for (const [i, f] of after.entries()) expect(f.score).toBeCloseTo(expected[i]!.score, 10);
      expect(after.length).toBe(question === 'honey' ? 0 : expected.length);
      if (question !== 'honey') expect(after.length).toBeGreaterThan(0);
    }
    const counters = async (datasetId: string) =>
      countersOf((await termItems(kb.teamId, datasetId)).find((i) => i.sk === 'n'));
    expect(await counters(kb.datasetId)).toEqual(await counters(freshDataset));
  });

  it('counts every chunk when other processes write the same counters at the same time', async () => {
    const teamId = newObjectId();
    const datasetId = newObjectId();
    const sequential = newObjectId();
    const names = Object.keys(PASSAGES) as PassageName[];
    const docs = names.map((name) => ({ dataId: newObjectId(), collectionId: newObjectId(), texts: [PASSAGES[name]] }));
    // Four writers, as four Lambda functions training collections of one knowledge base: none shares a group commit.
    const writers = Array.from({ length: 4 }, () => new DynamoFullTextIndex(documents, termsTable));
    await Promise.all(
      docs.map((doc, i) => writers[i % writers.length]!.add(teamId, datasetId, [doc], { fresh: true })),
    );
    const one = new DynamoFullTextIndex(documents, termsTable);
    for (const doc of docs) await one.add(teamId, sequential, [doc], { fresh: true });

    const counters = async (id: string) => countersOf((await termItems(teamId, id)).find((i) => i.sk === 'n'));
    expect((await counters(datasetId)).docs).toBe(docs.length);
    expect(await counters(datasetId)).toEqual(await counters(sequential));
  });

  it('reads the rarest term always and skips a term whose postings would cross the budget', async () => {
    const teamId = newObjectId();
    const datasetId = newObjectId();
    const index = new DynamoFullTextIndex(documents, termsTable, { postingsBudget: 2 });
    const collectionId = newObjectId();
    const ids = [newObjectId(), newObjectId(), newObjectId()];
    await index.add(teamId, datasetId, [
      { dataId: ids[0]!, collectionId, texts: ['common rare'] },
      { dataId: ids[1]!, collectionId, texts: ['common'] },
      { dataId: ids[2]!, collectionId, texts: ['common'] },
    ]);

    expect((await index.search(teamId, datasetId, 'rare common', 10)).map((f) => f.dataId)).toEqual([ids[0]]);
    expect(await index.search(teamId, datasetId, 'common', 10)).toHaveLength(3);
  });

  it('reads terms whose estimates another term raised, a wave later, and scores them as if it had not', async () => {
    const teamId = newObjectId();
    const collectionId = newObjectId();
    const docs: FullTextDoc[] = [
      { dataId: newObjectId(), collectionId, texts: ['alpha beta gamma'] },
      { dataId: newObjectId(), collectionId, texts: ['delta epsilon'] },
    ];
    const plain = newObjectId();
    const raised = newObjectId();
    const index = new DynamoFullTextIndex(documents, termsTable, { postingsBudget: 10 });
    await index.add(teamId, plain, docs);
    await index.add(teamId, raised, docs);
    // As if frequent terms shared every counter of alpha, beta and gamma: each estimated at 7 chunks, read at 1.
    const raise = [...new Set(['alpha', 'beta', 'gamma'].flatMap(sketchCells))];
    await documents.send(
      new UpdateCommand({
        TableName: termsTable,
        Key: { pk: datasetKey(teamId, raised), sk: 'n' },
        UpdateExpression: `ADD ${raise.map((cell) => `${cell} :six`).join(', ')}`,
        ExpressionAttributeValues: { ':six': 6 },
      }),
    );

    const found = await index.search(teamId, raised, 'alpha beta gamma', 10);

    expect(found.map((f) => f.dataId)).toEqual([docs[0]!.dataId]);
    expect(found[0]!.score).toBeCloseTo((await index.search(teamId, plain, 'alpha beta gamma', 10))[0]!.score, 10);
  });

  it('removes chunks of an index written before the sketch without driving its counters below zero', async () => {
    const teamId = newObjectId();
    const datasetId = newObjectId();
    const pk = datasetKey(teamId, datasetId);
    const [kept, gone, collectionId] = [newObjectId(), newObjectId(), newObjectId()];
    // The layout before 2026-11-28: a counter item per term, blocks without a count, a batch counting `live` chunks.
    await putItems(documents, termsTable, [
      { pk, sk: 'n', docs: 2, total: 3 },
      { pk, sk: 's#honey', df: 2 },
      { pk, sk: 's#jar', df: 1 },
      { pk, sk: 't#honey#b1', p: `${kept} ${collectionId} 0 1 1\n${gone} ${collectionId} 1 1 2` },
      { pk, sk: 't#jar#b1', p: `${gone} ${collectionId} 1 1 2` },
      { pk, sk: `d#${kept}`, terms: ['honey'], length: 1, batch: 'b1' },
      { pk, sk: `d#${gone}`, terms: ['honey', 'jar'], length: 2, batch: 'b1' },
      { pk, sk: 'b#b1', terms: ['honey', 'jar'], live: 2 },
    ]);
    const index = new DynamoFullTextIndex(documents, termsTable);

    await index.remove(teamId, datasetId, [gone]);
    await index.add(teamId, datasetId, [{ dataId: newObjectId(), collectionId, texts: ['honey jar'] }]);

    const items = await termItems(teamId, datasetId);
    const counters = items.find((i) => i.sk === 'n')!;
    expect(Object.values(counters).every((v) => typeof v !== 'number' || v >= 0)).toBe(true);
    // One chunk of the old layout is left (two chunks, one counted by the sketch): searches still read the old items.
    expect(counters).toMatchObject({ docs: 2, total: 3, s2d: 1 });
    expect(items.find((i) => i.sk === 't#honey#b1')?.p).toBe(`${kept} ${collectionId} 0 1 1`);
    expect(items.some((i) => i.sk === 't#jar#b1')).toBe(false);
    // The chunk left of the old batch is found beside the new one, its df counted from its block.
    expect((await index.search(teamId, datasetId, 'honey', 10)).map((f) => f.dataId)).toContain(kept);
  });

  it('searches an index written before the sketch as it stands, its terms ordered by their old df items', async () => {
    const teamId = newObjectId();
    const datasetId = newObjectId();
    const pk = datasetKey(teamId, datasetId);
    const [honey, jar, collectionId] = [newObjectId(), newObjectId(), newObjectId()];
    // The layout before 2026-11-28 only: no sketch counter on `n`, a df item per term.
    await putItems(documents, termsTable, [
      { pk, sk: 'n', docs: 2, total: 3 },
      { pk, sk: 's#honey', df: 2 },
      { pk, sk: 's#jar', df: 1 },
      { pk, sk: 't#honey#b1', p: `${honey} ${collectionId} 0 1 1\n${jar} ${collectionId} 1 1 2` },
      { pk, sk: 't#jar#b1', p: `${jar} ${collectionId} 1 1 2` },
    ]);
    const index = new DynamoFullTextIndex(documents, termsTable);

    const found = await index.search(teamId, datasetId, 'honey jar', 10);

    expect(found.map((f) => f.dataId)).toEqual([jar, honey]);
  });

  it('counts the chunks its sketch counts, so a newer index never reads the old per-term items', async () => {
    const kb = await knowledgeBase(['panda', 'eiffel', 'honey']);
    const counters = async () => (await termItems(kb.teamId, kb.datasetId)).find((i) => i.sk === 'n')!;
    expect(await counters()).toMatchObject({ docs: 3, s2d: 3 });

    await kb.index.remove(kb.teamId, kb.datasetId, [kb.idOf('panda')]);

    expect(await counters()).toMatchObject({ docs: 2, s2d: 2 });
  });

  it('indexes a chunk written again from its new text only', async () => {
    const kb = await knowledgeBase(['panda']);
    const id = kb.idOf('panda');
    await kb.index.add(kb.teamId, kb.datasetId, [
      { dataId: id, collectionId: kb.collection.id, texts: [PASSAGES.honey] },
    ]);
    expect((await kb.index.search(kb.teamId, kb.datasetId, 'honey', 10)).map((f) => f.dataId)).toEqual([id]);
    expect(await kb.index.search(kb.teamId, kb.datasetId, '大熊猫', 10)).toEqual([]);
  });

  it('writes nothing until the chunks it waits for are stored, and nothing at all when their write fails', async () => {
    const teamId = newObjectId();
    const datasetId = newObjectId();
    const index = new DynamoFullTextIndex(documents, termsTable);
    const doc = { dataId: newObjectId(), collectionId: newObjectId(), texts: [PASSAGES.panda] };
    let store = () => {};
    const stored = new Promise<void>((resolve) => {
      store = resolve;
    });

    const adding = index.add(teamId, datasetId, [doc], { fresh: true, after: stored });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await termItems(teamId, datasetId)).toEqual([]);
    store();
    await adding;
    expect((await index.search(teamId, datasetId, '大熊猫', 10)).map((f) => f.dataId)).toEqual([doc.dataId]);

    const failedDataset = newObjectId();
    const failed = Promise.reject(new Error('chunk write failed'));
    await expect(index.add(teamId, failedDataset, [doc], { fresh: true, after: failed })).rejects.toThrow(
      'chunk write failed',
    );
    expect(await termItems(teamId, failedDataset)).toEqual([]);
  });

  it("cuts a large training into batches whose items fit DynamoDB's 400 KB, and finds and removes every chunk", async () => {
    const teamId = newObjectId();
    const datasetId = newObjectId();
    const index = new DynamoFullTextIndex(documents, termsTable);
    const collectionId = newObjectId();
    // 2,500 chunks sharing their words; and 25 chunks of 100 distinct 40-letter words each (2,500 distinct terms).
    const many = Array.from({ length: 2_500 }, (_, i) => ({
      dataId: newObjectId(),
      collectionId,
      chunkIndex: i,
      texts: ['Refunds return to the original payment method within three working days.'],
    }));
    const word = (i: number) => `w${i.toString(36).padStart(4, '0')}`.padEnd(40, 'x');
    const wordy = Array.from({ length: 25 }, (_, d) => ({
      dataId: newObjectId(),
      collectionId,
      chunkIndex: 2_500 + d,
      texts: [Array.from({ length: 100 }, (_, w) => word(d * 100 + w)).join(' ')],
    }));

    await index.add(teamId, datasetId, many, { fresh: true });
    await index.add(teamId, datasetId, wordy, { fresh: true });

    const items = await allTermItems(teamId, datasetId);
    const batchItems = items.filter((i) => String(i.sk).startsWith('b#'));
    // 1,000 chunks a batch at most; the wordy chunks' terms past 256 KB (3 bytes a character, 12,100 a chunk) make two.
    expect(batchItems.map((b) => (b.ids as Set<string>).size).sort((a, b) => a - b)).toEqual([3, 22, 500, 1000, 1000]);
    expect(Math.max(...items.map((i) => JSON.stringify(i).length))).toBeLessThan(100_000);
    expect(await index.search(teamId, datasetId, 'refunds', 3_000)).toHaveLength(2_500);
    expect((await index.search(teamId, datasetId, word(2_499), 10)).map((f) => f.dataId)).toEqual([wordy[24]?.dataId]);

    await index.remove(
      teamId,
      datasetId,
      [...many, ...wordy].map((d) => d.dataId),
    );
    expect((await allTermItems(teamId, datasetId)).map((i) => i.sk)).toEqual(['n']);
  }, 120_000);

  it('removes a whole knowledge base', async () => {
    const kb = await knowledgeBase(['panda', 'eiffel']);
    await kb.index.removeDataset(kb.teamId, kb.datasetId);
    const left = await documents.send(
      new QueryCommand({
        TableName: termsTable,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': datasetKey(kb.teamId, kb.datasetId) },
      }),
    );
    expect(left.Items).toEqual([]);
  });
});

describe('chunk reader', () => {
  it('shows ready chunks of the current generation, joined with their collection', async () => {
    const kb = await knowledgeBase(['panda', 'honey']);
    const reader = new DynamoChunkReader(documents, contentTable);
    const found = await reader.readSearchable(kb.teamId, kb.datasetId, [kb.idOf('panda')]);
    expect(found).toEqual([
      {
        id: kb.idOf('panda'),
        datasetId: kb.datasetId,
        collectionId: kb.collection.id,
        chunkIndex: 0,
        q: PASSAGES.panda,
        a: '',
        updateTime: kb.chunks[0]!.updateTime,
        sourceName: 'passages.txt',
        sourceId: 'file-1',
      },
    ]);
  });

  it('leaves out chunks not ready, of an old generation, of a forbidden or missing collection, or of another team', async () => {
    const teamId = newObjectId();
    const datasetId = newObjectId();
    const live = collectionItem(teamId, datasetId, { generation: 2 });
    const forbidden = collectionItem(teamId, datasetId, { forbid: true });
    const gone = collectionItem(teamId, datasetId);
    const chunks = {
      ready: chunkItem(live, 0, 'ready'),
      notReady: chunkItem(live, 1, 'not ready', { ready: false }),
      oldGeneration: chunkItem(live, 2, 'old', { generation: 1 }),
      forbidden: chunkItem(forbidden, 0, 'forbidden'),
      orphan: chunkItem(gone, 0, 'orphan'),
    };
    await putItems(documents, contentTable, [live, forbidden, ...Object.values(chunks)]);
    const reader = new DynamoChunkReader(documents, contentTable);
    const refs = Object.values(chunks).map((c) => ({
      dataId: c.id,
      collectionId: c.collectionId,
      chunkIndex: c.chunkIndex,
    }));

    const byKey = await reader.readRefs(teamId, datasetId, refs);
    const byId = await reader.readSearchable(
      teamId,
      datasetId,
      Object.values(chunks).map((c) => c.id),
    );
    const elsewhere = await reader.readRefs(newObjectId(), datasetId, refs);

    expect(byKey.map((c) => c.id)).toEqual([chunks.ready.id]);
    expect(byId.map((c) => c.id)).toEqual([chunks.ready.id]);
    expect(elsewhere).toEqual([]);
  });

  it('does not read a chunk whose item names another team, even under the right key', async () => {
    const teamId = newObjectId();
    const datasetId = newObjectId();
    const collection = collectionItem(teamId, datasetId);
    const planted = chunkItem(collection, 0, 'planted', { teamId: newObjectId() });
    await putItem(documents, contentTable, collection);
    await putItem(documents, contentTable, planted);
    const reader = new DynamoChunkReader(documents, contentTable);
    expect(
      await reader.readRefs(teamId, datasetId, [{ dataId: planted.id, collectionId: collection.id, chunkIndex: 0 }]),
    ).toEqual([]);
  });
});
