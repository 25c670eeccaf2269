import type { SplitText } from './contract.ts';

/*
 * A plain paragraph splitter: paragraphs packed into chunks of at most `chunkSize` characters, a paragraph longer than
 * that cut at sentence ends, then hard. It stands in until FastGPT's own splitter (shared/kb/chunking.ts) is wired; the
 * training core takes either through the SplitText contract.
 */
export const basicSplit: SplitText = (text, options) => {
  const size = Math.max(1, options.chunkSize);
  const sections = options.chunkSplitter ? text.split(options.chunkSplitter) : [text];
  const chunks: string[] = [];
  for (const section of sections) {
    let current = '';
    for (const paragraph of section.split(/\n\s*\n/)) {
      for (const piece of cut(paragraph.trim(), size)) {
        if (piece === '') continue;
        if (current !== '' && current.length + piece.length + 2 > size) {
          chunks.push(current);
          current = '';
        }
        current = current === '' ? piece : `${current}\n\n${piece}`;
      }
    }
    if (current !== '') chunks.push(current);
  }
  return chunks;
};

function cut(paragraph: string, size: number): string[] {
  if (paragraph.length <= size) return [paragraph];
  const sentences = paragraph.match(/[^.!?。！？]+[.!?。！？]*\s*/g) ?? [paragraph];
  const pieces: string[] = [];
  let current = '';
  for (const sentence of sentences) {
    if (current.length + sentence.length > size && current !== '') {
      pieces.push(current.trim());
      current = '';
    }
    current += sentence;
    while (current.length > size) {
      pieces.push(current.slice(0, size));
      current = current.slice(size);
    }
  }
  if (current.trim() !== '') pieces.push(current.trim());
  return pieces;
}
