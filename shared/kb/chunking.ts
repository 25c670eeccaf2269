import type { SplitText } from './contract.js';

/*
 * Chunking as FastGPT's default "paragraph" mode cuts text (behaviour read in FastGPT v4.11–v4.16,
 * packages/global/common/string/textSplitter.ts; written here from that behaviour, see
 * docs/knowledge-base-chunking.md):
 *
 * - levels, coarsest first: the custom splitter (`chunkSplitter`, several alternatives joined by `|`), Markdown headings
 *   `#` to `#####`, fenced code blocks, Markdown tables, blank lines (paragraphs), line breaks, then sentences (`。`,
 *   `. ` after a letter), `！`/`! `, `？`/`? `, `；`/`; `, `，`/`, ` — Chinese and English punctuation alike;
 * - a text longer than the chunk size is cut at the coarsest level that cuts it; small pieces are merged up to the chunk
 *   size (a chunk may reach 1.2× the size rather than leave a tiny tail), and a tail under 40% of the size joins the
 *   chunk before it;
 * - pieces of a custom splitter are never merged; under a heading, chunks start with the heading path;
 * - overlap (default 20%) only where a chunk is cut inside a paragraph (sentence level and finer), never across
 *   headings, code blocks, tables or paragraphs;
 * - a code block stays whole up to `maxSize` (8,000 characters, FastGPT's default); a table larger than the chunk size
 *   is cut by rows, each part repeating the header row;
 * - lengths count characters other than white space, as FastGPT does.
 */

/** FastGPT's default maximum of one chunk (a code block may grow to it). */
export const DEFAULT_MAX_CHUNK_SIZE = 8000;
/** FastGPT's default paragraph depth: headings `#` to `#####` cut first. */
export const DEFAULT_HEADING_DEPTH = 5;
/** Overlap of chunk mode (FastGPT: 0.2 for `chunk` training, 0 for `qa`). */
export const DEFAULT_OVERLAP_RATIO = 0.2;

export interface SplitOptions {
  readonly chunkSize: number;
  readonly chunkSplitter?: string;
  readonly overlapRatio?: number;
  /** Size a code block may keep whole (default 8,000). */
  readonly maxSize?: number;
  /** Heading levels cut first (default 5, at most 8). */
  readonly headingDepth?: number;
}

const SPLIT = '\u0000SPLIT\u0000';
const CODE_LINE = '\u0000CODELINE\u0000';

type LevelKind = 'custom' | 'heading' | 'plain' | 'overlap';
interface Level {
  readonly kind: LevelKind;
  /** A regular expression (global) whose first group is kept, or literal alternatives for a custom splitter. */
  readonly cut: RegExp | readonly string[];
  readonly maxLen: number;
}
interface Piece {
  readonly text: string;
  readonly title: string;
  readonly maxLen: number;
}

/** Characters other than white space: FastGPT's measure of a chunk's length. */
export function visibleLength(text: string): number {
  return text.replace(/\s/g, '').length;
}

const TABLE_IN_TEXT = /(\n\|(?:(?:[^\n|]+\|)+)\n\|(?:[:\-\s]+\|)+\n(?:\|(?:[^\n|]+\|)*\n?)*)(?:\n|$)/g;

function isMarkdownTable(text: string): boolean {
  const lines = text.trim().split('\n');
  const [header, separator, ...rows] = lines.map((line) => line.trim());
  if (header === undefined || separator === undefined) return false;
  if (!header.startsWith('|') || !header.endsWith('|')) return false;
  if (!/^(\|[\s:]*-+[\s:]*)+\|$/.test(separator)) return false;
  return rows.every((row) => row === '' || (row.startsWith('|') && row.endsWith('|')));
}

/** A table cut into parts of at most `chunkSize`, each starting with the header and a separator row. */
function splitTable(table: string, chunkSize: number): string[] {
  const lines = table.trim().split('\n');
  const header = lines[0] ?? '';
  const columns = Math.max(header.split('|').length - 2, 1);
  const head = `${header}\n| ${Array.from({ length: columns }, () => '---').join(' | ')} |\n`;
  const parts: string[] = [];
  let part = head;
  for (const row of lines.slice(2)) {
    if (part !== head && visibleLength(part) + visibleLength(row) > chunkSize) {
      parts.push(part);
      part = head;
    }
    part += `${row}\n`;
  }
  parts.push(part);
  return parts;
}

function buildLevels(options: Required<Omit<SplitOptions, 'chunkSplitter'>> & { chunkSplitter?: string }): Level[] {
  const { chunkSize, maxSize, headingDepth, chunkSplitter } = options;
  const levels: Level[] = [];
  if (chunkSplitter) {
    // FastGPT's form: `\n` written as two characters means a line break; `|` separates alternatives.
    const alternatives = chunkSplitter
      .replaceAll('\\n', '\n')
      .split('|')
      .filter((part) => part.length > 0);
    if (alternatives.length > 0) levels.push({ kind: 'custom', cut: alternatives, maxLen: chunkSize });
  }
  for (let depth = 1; depth <= Math.min(headingDepth, 8); depth++) {
    levels.push({ kind: 'heading', cut: new RegExp(`^(${'#'.repeat(depth)}\\s[^\\n]+\\n)`, 'gm'), maxLen: chunkSize });
  }
  levels.push(
    { kind: 'plain', cut: /(\n(?:```[\s\S]*?```|~~~[\s\S]*?~~~))/g, maxLen: maxSize },
    { kind: 'plain', cut: /(\n\|(?:(?:[^\n|]+\|)+)\n\|(?:[:\-\s]+\|)+\n(?:\|(?:[^\n|]+\|)*\n)*)/g, maxLen: chunkSize },
    { kind: 'plain', cut: /(\n{2,})/g, maxLen: chunkSize },
    { kind: 'plain', cut: /(\n)/g, maxLen: chunkSize },
    { kind: 'overlap', cut: /(。|[a-zA-Z]\.\s)/g, maxLen: chunkSize },
    { kind: 'overlap', cut: /(！|!\s)/g, maxLen: chunkSize },
    { kind: 'overlap', cut: /(？|\?\s)/g, maxLen: chunkSize },
    { kind: 'overlap', cut: /(；|;\s)/g, maxLen: chunkSize },
    { kind: 'overlap', cut: /(，|,\s)/g, maxLen: chunkSize },
  );
  return levels;
}

function matches(cut: RegExp | readonly string[], text: string): string | undefined {
  if (Array.isArray(cut)) return cut.find((part) => text.includes(part));
  const regex = new RegExp((cut as RegExp).source, (cut as RegExp).flags.replace('g', ''));
  return regex.exec(text)?.[0];
}

function cutText(level: Level, text: string, chunkSize: number): Piece[] {
  let marked: string;
  if (Array.isArray(level.cut)) {
    marked = text;
    for (const part of level.cut) marked = marked.replaceAll(part, SPLIT);
  } else {
    // A heading starts its piece; any other separator ends the piece before it.
    marked = text.replace(level.cut as RegExp, level.kind === 'heading' ? `${SPLIT}$1` : `$1${SPLIT}`);
  }
  return marked
    .split(SPLIT)
    .filter((part) => part.trim().length > 0)
    .map((part) => {
      const found = matches(level.cut, part);
      const title = level.kind === 'heading' && found && part.startsWith(found) ? found : '';
      return {
        text: title ? part.slice(title.length) : part,
        title,
        maxLen: found === undefined ? chunkSize : level.maxLen,
      };
    })
    .filter((piece) => piece.title.length > 0 || piece.text.trim().length > 0);
}

class Splitter {
  private readonly levels: Level[];
  private readonly overlapLen: number;
  private readonly lastHeading: number;

  constructor(private readonly options: Required<Omit<SplitOptions, 'chunkSplitter'>> & { chunkSplitter?: string }) {
    this.levels = buildLevels(options);
    this.overlapLen = Math.round(options.chunkSize * options.overlapRatio);
    this.lastHeading = this.levels.map((level) => level.kind).lastIndexOf('heading');
  }

  split(text: string): string[] {
    return this.recurse(text, 0, '', '');
  }

  /** The end of a chunk that starts the next one: whole pieces of `step`'s level, about `overlapLen` long. */
  private overlap(text: string, step: number): string {
    const level = this.levels[step];
    if (level?.kind !== 'overlap' || this.overlapLen === 0) return '';
    const pieces = cutText(level, text, this.options.chunkSize);
    let tail = '';
    for (let i = pieces.length - 1; i >= 0; i--) {
      const longer = (pieces[i]?.text ?? '') + tail;
      const length = visibleLength(longer);
      if (length > this.overlapLen) {
        if (length > this.options.chunkSize * 0.4) return this.overlap(longer, step + 1) || tail;
        return longer;
      }
      tail = longer;
    }
    return tail;
  }

  private recurse(text: string, step: number, carried: string, parentTitle: string): string[] {
    const { chunkSize, maxSize } = this.options;
    const level = this.levels[step];
    if (!level) {
      if (visibleLength(text) < maxSize) return [text];
      const parts: string[] = [];
      for (let i = 0; i < text.length; i += chunkSize - this.overlapLen) parts.push(text.slice(i, i + chunkSize));
      return parts;
    }
    const chunks: string[] = [];
    let last = carried;
    const pieces = cutText(level, text, chunkSize);
    for (let i = 0; i < pieces.length; i++) {
      const piece = pieces[i] as Piece;
      const joined = last + piece.text;
      if (level.kind === 'heading') {
        const inner = this.recurse(joined, step + 1, '', parentTitle + piece.title);
        if (inner.length === 0) chunks.push(parentTitle + piece.title);
        else if (step === this.lastHeading) chunks.push(...inner.map((chunk) => parentTitle + piece.title + chunk));
        else chunks.push(...inner);
        continue;
      }
      const joinedLength = visibleLength(joined);
      if (joinedLength > piece.maxLen) {
        if (joinedLength < piece.maxLen * 1.2) {
          chunks.push(joined);
          last = this.overlap(joined, step);
          continue;
        }
        if (visibleLength(last) > piece.maxLen * 0.8) {
          chunks.push(last);
          last = this.overlap(last, step);
          i--;
          continue;
        }
        const inner = this.recurse(piece.text, step + 1, last, parentTitle + piece.title);
        const tail = inner.at(-1);
        if (tail === undefined) continue;
        if (visibleLength(tail) < piece.maxLen * 0.8) {
          chunks.push(...inner.slice(0, -1));
          last = tail;
        } else {
          chunks.push(...inner);
          last = this.overlap(tail, step);
        }
        continue;
      }
      if (level.kind === 'custom') {
        chunks.push(piece.text);
        continue;
      }
      last = joined;
    }
    const previous = chunks.at(-1);
    if (last && previous !== undefined && !previous.endsWith(last)) {
      if (visibleLength(last) < chunkSize * 0.4) chunks[chunks.length - 1] = previous + last;
      else chunks.push(last);
    } else if (last && chunks.length === 0) {
      chunks.push(last);
    }
    return chunks;
  }
}

/** FastGPT's final clean-up of a chunk: trimmed, runs of blank lines at most one. */
function tidy(chunk: string): string {
  return chunk
    .replace(/\r\n?/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function commonSplit(
  input: string,
  options: Required<Omit<SplitOptions, 'chunkSplitter'>> & { chunkSplitter?: string },
): string[] {
  // Line breaks inside code blocks become a marker, so paragraph and line levels never cut a code block.
  let text = input.replace(/(```[\s\S]*?```|~~~[\s\S]*?~~~)/g, (block) => block.replaceAll('\n', CODE_LINE));
  // A large table becomes several tables, each small enough and each with its header.
  text = text.replace(TABLE_IN_TEXT, (table) => `\n${splitTable(table.trim(), options.chunkSize).join('\n')}\n`);
  text = text.replace(/(\r?\n|\r){3,}/g, '\n\n\n');
  return new Splitter(options).split(text).map((chunk) => chunk.replaceAll(CODE_LINE, '\n'));
}

/** Splits a text into chunks as FastGPT's default paragraph mode does. */
export function splitText(text: string, options: SplitOptions): string[] {
  const chunkSize = Math.max(1, Math.floor(options.chunkSize));
  const resolved = {
    chunkSize,
    overlapRatio: Math.min(Math.max(options.overlapRatio ?? DEFAULT_OVERLAP_RATIO, 0), 0.5),
    maxSize: Math.max(options.maxSize ?? DEFAULT_MAX_CHUNK_SIZE, chunkSize),
    headingDepth: options.headingDepth ?? DEFAULT_HEADING_DEPTH,
    ...(options.chunkSplitter ? { chunkSplitter: options.chunkSplitter } : {}),
  };
  // Control characters out first (FastGPT blanks them too), so the markers above never meet one in the text.
  const normalised = text.replace(/\r\n?/g, '\n').replace(/[^\P{Cc}\n\t]/gu, ' ');
  const chunks = isMarkdownTable(normalised)
    ? splitTable(normalised.trim(), chunkSize)
    : commonSplit(normalised, resolved);
  return chunks.map(tidy).filter((chunk) => chunk.length > 0);
}

/** The contract's SplitText (shared/kb/contract.ts). */
export const splitTextAsFastGpt: SplitText = (text, options) => splitText(text, options);
