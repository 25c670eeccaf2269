import { SourceError } from '../contract.ts';
import { looksLikeDocx } from './zip.ts';

/*
 * Uploaded files to text (docs/knowledge-base-sources.md, "Files"): .txt, .md, .html, .csv, .pdf, .docx, at most
 * 10 MB. The extension says what the file claims to be; the bytes must agree (a PDF starts with `%PDF-`, a DOCX is a
 * zip with Word's parts, a text file is text in UTF-8, UTF-16 with a byte-order mark, or GB 18030), and a declared
 * content type, when the client sends a specific one, must fit the extension: anything else is refused before a
 * parser sees it. Each parser has its own size and time limits (pdf.ts, docx.ts).
 */

export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;
/** Characters of text a file may yield (a small file of repeated text can still be large once decoded). */
export const MAX_TEXT_CHARS = 3_000_000;

export type FileKind = 'txt' | 'md' | 'html' | 'csv' | 'pdf' | 'docx';

const KINDS: Record<string, FileKind> = {
  txt: 'txt',
  text: 'txt',
  md: 'md',
  markdown: 'md',
  html: 'html',
  htm: 'html',
  csv: 'csv',
  pdf: 'pdf',
  docx: 'docx',
};

/** Content types a client may declare for each kind, besides the generic ones. */
const DECLARED: Record<FileKind, readonly string[]> = {
  txt: ['text/plain'],
  md: ['text/markdown', 'text/x-markdown', 'text/plain'],
  html: ['text/html', 'application/xhtml+xml'],
  csv: ['text/csv', 'application/csv', 'text/comma-separated-values', 'application/vnd.ms-excel', 'text/plain'],
  pdf: ['application/pdf', 'application/x-pdf'],
  docx: ['application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
};
const GENERIC_TYPES = new Set([
  '',
  'application/octet-stream',
  'binary/octet-stream',
  'application/x-www-form-urlencoded',
]);

/** The content type stored with a file of this kind. */
export const STORED_CONTENT_TYPE: Record<FileKind, string> = {
  txt: 'text/plain; charset=utf-8',
  md: 'text/markdown; charset=utf-8',
  html: 'text/html; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
  pdf: 'application/pdf',
  docx: DECLARED.docx[0] as string,
};

/** The kind of a file from its name; SourceError for a type the product does not read. */
export function fileKind(name: string): FileKind {
  const extension = /\.([A-Za-z0-9]+)$/.exec(name.trim())?.[1]?.toLowerCase() ?? '';
  const kind = KINDS[extension];
  if (!kind) {
    throw new SourceError(
      `files of type ${extension ? `.${extension}` : 'without extension'} are not supported: use .txt, .md, .html, .csv, .pdf or .docx`,
    );
  }
  return kind;
}

// Magic numbers of binary formats a text file must not start with.
const BINARY_MAGIC: readonly number[][] = [
  [0x25, 0x50, 0x44, 0x46], // %PDF
  [0x50, 0x4b, 0x03, 0x04], // zip (docx, xlsx, ...)
  [0x89, 0x50, 0x4e, 0x47], // PNG
  [0xff, 0xd8, 0xff], // JPEG
  [0x47, 0x49, 0x46, 0x38], // GIF
  [0xd0, 0xcf, 0x11, 0xe0], // OLE (doc, xls)
  [0x7f, 0x45, 0x4c, 0x46], // ELF
  [0x1f, 0x8b], // gzip
];

const startsWith = (bytes: Uint8Array, magic: readonly number[]) => magic.every((b, i) => bytes[i] === b);

/** The text of a text file, or undefined when the bytes are not text. */
export function decodeText(bytes: Uint8Array): string | undefined {
  if (startsWith(bytes, [0xef, 0xbb, 0xbf])) return strictDecode('utf-8', bytes.subarray(3));
  if (startsWith(bytes, [0xff, 0xfe])) return strictDecode('utf-16le', bytes.subarray(2));
  if (startsWith(bytes, [0xfe, 0xff])) return strictDecode('utf-16be', bytes.subarray(2));
  if (BINARY_MAGIC.some((magic) => startsWith(bytes, magic))) return undefined;
  if (bytes.subarray(0, 64 * 1024).includes(0)) return undefined;
  // Chinese text files saved by older Windows tools are GB 18030 (a superset of GBK), the usual fallback.
  return strictDecode('utf-8', bytes) ?? strictDecode('gb18030', bytes);
}

function strictDecode(encoding: string, bytes: Uint8Array): string | undefined {
  try {
    const text = new TextDecoder(encoding, { fatal: true }).decode(bytes);
    // Control characters other than tab, line breaks and form feed mean a binary file decoded by chance.
    const sample = text.slice(0, 64 * 1024);
    const control = sample.match(/[^\P{Cc}\t\n\r\f]/gu)?.length ?? 0;
    return control > sample.length / 100 ? undefined : text;
  } catch {
    return undefined;
  }
}

/** Refuses a file whose bytes (or declared content type) do not match its extension. */
export function checkContent(kind: FileKind, bytes: Uint8Array, declaredType = ''): void {
  const declared = declaredType.split(';')[0]?.trim().toLowerCase() ?? '';
  if (!GENERIC_TYPES.has(declared) && !DECLARED[kind].includes(declared)) {
    throw new SourceError(`the file is sent as ${declared}, which does not match its .${kind} name`);
  }
  const mismatch = new SourceError(`the file's content does not match its .${kind} name`);
  if (kind === 'pdf') {
    // PDF readers accept the header anywhere in the first 1 KiB; so does this check.
    if (!Buffer.from(bytes.subarray(0, 1024)).includes('%PDF-')) throw mismatch;
    return;
  }
  if (kind === 'docx') {
    if (!looksLikeDocx(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength))) throw mismatch;
    return;
  }
  const text = decodeText(bytes);
  if (text === undefined) throw mismatch;
  if (kind === 'html' && !/<[a-z!/]/i.test(text.slice(0, 64 * 1024))) throw mismatch;
}

/** Splits CSV (RFC 4180: quoted fields, doubled quotes, line breaks inside quotes) into rows. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field === '') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows.filter((r) => r.some((cell) => cell.trim() !== ''));
}

/** A CSV as a Markdown table, as FastGPT reads CSV: the first row is the header; the chunker keeps it on every part. */
export function csvToMarkdown(text: string): string {
  const [header, ...rows] = parseCsv(text);
  if (!header) return '';
  const cell = (value: string) => value.replace(/\r?\n/g, '\\n').replace(/\|/g, '\\|').trim();
  const line = (cells: readonly string[]) => `| ${header.map((_, i) => cell(cells[i] ?? '')).join(' | ')} |`;
  return [line(header), `| ${header.map(() => '---').join(' | ')} |`, ...rows.map(line)].join('\n');
}

/** Reads an uploaded or stored file to text; SourceError with a message the user can act on. */
export async function fileText(file: { name: string; bytes: Uint8Array; contentType?: string }): Promise<string> {
  const kind = fileKind(file.name);
  if (file.bytes.byteLength > MAX_UPLOAD_BYTES) {
    throw new SourceError(`the file is larger than ${MAX_UPLOAD_BYTES / 1024 / 1024} MB`);
  }
  checkContent(kind, file.bytes, file.contentType);
  // The parsers load on first use: the upload call only checks a file's type and never loads them.
  let text: string;
  switch (kind) {
    case 'pdf':
      text = await (await import('./pdf.ts')).pdfText(file.bytes, { maxChars: MAX_TEXT_CHARS });
      break;
    case 'docx':
      text = await (await import('./docx.ts')).docxText(file.bytes);
      break;
    case 'html':
      text = (await import('./html.ts')).htmlToText(decodeText(file.bytes) ?? '').text;
      break;
    case 'csv':
      text = csvToMarkdown(decodeText(file.bytes) ?? '');
      break;
    default:
      text = decodeText(file.bytes) ?? '';
  }
  if (text.length > MAX_TEXT_CHARS) {
    throw new SourceError(`the file holds more than ${MAX_TEXT_CHARS.toLocaleString('en')} characters of text`);
  }
  if (text.trim() === '') throw new SourceError('the file holds no text');
  return text;
}
