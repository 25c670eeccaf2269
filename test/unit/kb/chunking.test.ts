import { describe, expect, it } from 'vitest';
import { splitText, splitTextAsFastGpt, visibleLength } from '#shared/kb/chunking';

const englishSentences = (count: number) =>
  Array.from(
    { length: count },
    (_, i) => `Sentence ${i} explains how the knowledge base cuts a long document into chunks for search.`,
  );
const chineseSentences = (count: number) =>
  Array.from({ length: count }, (_, i) => `知识库第${i}句话说明了长文档如何被切分成片段以便检索。`);

describe('splitText (FastGPT paragraph mode)', () => {
  it('keeps a text shorter than the chunk size as one chunk', () => {
    expect(splitText('  Hello world.\n\nA second paragraph.  ', { chunkSize: 1000 })).toEqual([
      'Hello world.\n\nA second paragraph.',
    ]);
  });

  it('cuts long English prose at sentences, about chunkSize each, with about 20% overlap', () => {
    const text = englishSentences(60).join(' ');

    const chunks = splitText(text, { chunkSize: 500 });

    expect(chunks.length).toBeGreaterThan(5);
    for (const chunk of chunks.slice(0, -1)) {
      expect(visibleLength(chunk)).toBeGreaterThan(400);
      expect(visibleLength(chunk)).toBeLessThanOrEqual(600);
      expect(chunk.endsWith('search.')).toBe(true);
    }
    // The next chunk starts with the last sentences of the one before.
    const firstOfSecond = chunks[1]?.slice(0, chunks[1].indexOf('.') + 1) ?? '';
    expect(chunks[0]).toContain(firstOfSecond);
    expect(firstOfSecond.length).toBeGreaterThan(10);
    // Every sentence is somewhere.
    for (const sentence of englishSentences(60)) expect(chunks.some((chunk) => chunk.includes(sentence))).toBe(true);
  });

  it('cuts long Chinese prose at 。 with overlap', () => {
    const text = chineseSentences(80).join('');

    const chunks = splitText(text, { chunkSize: 300 });

    expect(chunks.length).toBeGreaterThan(5);
    for (const chunk of chunks.slice(0, -1)) {
      expect(chunk.endsWith('。')).toBe(true);
      expect(chunk.length).toBeLessThanOrEqual(360);
    }
    const overlapSentence = chunks[1]?.split('。')[0] ?? '';
    expect(overlapSentence).not.toBe('');
    expect(chunks[0]).toContain(`${overlapSentence}。`);
  });

  it('does not overlap at all when overlapRatio is 0 (FastGPT qa mode)', () => {
    const chunks = splitText(chineseSentences(80).join(''), { chunkSize: 300, overlapRatio: 0 });

    const total = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
    expect(total).toBe(chineseSentences(80).join('').length);
  });

  it('cuts at Markdown headings first and starts each chunk with its heading path', () => {
    const text = [
      '# 产品手册',
      '',
      '## 安装',
      '',
      chineseSentences(5).join(''),
      '',
      '## Usage',
      '',
      englishSentences(3).join(' '),
    ].join('\n');

    const chunks = splitText(text, { chunkSize: 1000 });

    expect(chunks).toHaveLength(2);
    expect(chunks[0]?.startsWith('# 产品手册\n## 安装\n')).toBe(true);
    expect(chunks[0]).not.toContain('Usage');
    expect(chunks[1]?.startsWith('# 产品手册\n## Usage\n')).toBe(true);
    expect(chunks[1]).toContain('Sentence 2');
  });

  it('never overlaps across paragraphs: a paragraph boundary cuts cleanly', () => {
    const paragraphs = Array.from({ length: 6 }, (_, i) => `Paragraph ${i}. ${englishSentences(3).join(' ')}`);

    const chunks = splitText(paragraphs.join('\n\n'), { chunkSize: 500 });

    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) expect(chunk.startsWith('Paragraph')).toBe(true);
    expect(chunks.join('\n\n').match(/Paragraph \d/g)).toHaveLength(6);
  });

  it('keeps a fenced code block whole even when it is longer than the chunk size', () => {
    const code = ['```ts', ...Array.from({ length: 40 }, (_, i) => `const value${i} = compute(${i});`), '```'].join(
      '\n',
    );
    const text = `${englishSentences(3).join(' ')}\n${code}\n\n${englishSentences(2).join(' ')}`;

    const chunks = splitText(text, { chunkSize: 300 });

    const withCode = chunks.filter((chunk) => chunk.includes('const value'));
    expect(withCode).toHaveLength(1);
    expect(withCode[0]).toContain('```ts\nconst value0 = compute(0);\nconst value1');
    expect(withCode[0]).toContain('const value39 = compute(39);\n```');
  });

  it('cuts a large Markdown table by rows and repeats its header in each part', () => {
    const rows = Array.from({ length: 60 }, (_, i) => `| 型号${i} | ${i * 10} 元 | 库存充足 |`);
    const table = ['| 名称 | 价格 | 状态 |', '| --- | --- | --- |', ...rows].join('\n');

    const chunks = splitText(table, { chunkSize: 300 });

    expect(chunks.length).toBeGreaterThan(2);
    for (const chunk of chunks) expect(chunk.startsWith('| 名称 | 价格 | 状态 |\n| --- | --- | --- |\n')).toBe(true);
    expect(chunks.join('\n').match(/型号\d+ /g)).toHaveLength(60);
  });

  it('keeps a table inside a text together when it fits', () => {
    const table = ['| a | b |', '| --- | --- |', '| 1 | 2 |', '| 3 | 4 |'].join('\n');
    const text = `${englishSentences(8).join(' ')}\n${table}\n\n${englishSentences(8).join(' ')}`;

    const chunks = splitText(text, { chunkSize: 400 });

    expect(chunks.filter((chunk) => chunk.includes('| 1 | 2 |\n| 3 | 4 |'))).toHaveLength(1);
  });

  it('honours chunkSplitter: cuts there first and never merges the pieces', () => {
    const text = '第一条：退货政策。\n---\nSecond item: shipping.\n---\n第三条：保修。';

    expect(splitText(text, { chunkSize: 1000, chunkSplitter: '---' })).toEqual([
      '第一条：退货政策。',
      'Second item: shipping.',
      '第三条：保修。',
    ]);
  });

  it('reads a \\n written in chunkSplitter as a line break and | as alternatives', () => {
    const text = 'alpha\n\nbeta###gamma';

    expect(splitText(text, { chunkSize: 1000, chunkSplitter: '\\n\\n|###' })).toEqual(['alpha', 'beta', 'gamma']);
  });

  it('joins a short tail to the chunk before it', () => {
    const text = `${englishSentences(5).join(' ')}\n\nThe end.`;

    const chunks = splitText(text, { chunkSize: 400 });

    expect(chunks.at(-1)?.endsWith('The end.')).toBe(true);
    expect(chunks.at(-1)).not.toBe('The end.');
  });

  it('cuts text with no separator at all by length', () => {
    const chunks = splitText('x'.repeat(20_000), { chunkSize: 1000 });

    expect(chunks.length).toBeGreaterThan(20);
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(1000);
  });

  it('blanks control characters, even ones that look like its own markers', () => {
    expect(splitText('a\u0000SPLIT\u0000b\u0007c', { chunkSize: 1000 })).toEqual(['a SPLIT b c']);
  });

  it('is usable as the contract SplitText and drops empty input', () => {
    expect(splitTextAsFastGpt('', { chunkSize: 1000 })).toEqual([]);
    expect(splitTextAsFastGpt('\n\n  \n', { chunkSize: 1000 })).toEqual([]);
  });
});
