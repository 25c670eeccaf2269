import { inflateRawSync } from 'node:zlib';
import mammoth from 'mammoth';
import { SourceError } from '../contract.ts';
import { htmlToText } from './html.ts';

/*
 * DOCX text with mammoth (docs/knowledge-base-sources.md, "Limits"). mammoth unzips in memory, so the zip is checked
 * first, by its own central directory: at most MAX_ENTRIES entries, and every entry really inflated here under a cap
 * (zlib's maxOutputLength), so a zip bomb, whatever sizes it declares, stops at DOCX_LIMITS.maxUnpackedBytes before
 * mammoth sees it. mammoth's HTML goes through the same HTML-to-text as pages, so headings, lists and tables keep
 * their lines. The whole read has a deadline.
 */

export const DOCX_LIMITS = Object.freeze({ maxEntries: 2000, maxUnpackedBytes: 64 * 1024 * 1024, timeoutMs: 20_000 });

interface ZipEntry {
  readonly name: string;
  readonly method: number;
  readonly compressedSize: number;
  readonly localOffset: number;
}

/** The entries of a zip's central directory; undefined when the bytes are not a zip. */
export function zipEntries(bytes: Buffer, maxEntries = DOCX_LIMITS.maxEntries): ZipEntry[] | undefined {
  // The end-of-central-directory record sits in the last 64 KiB + 22 bytes.
  const from = Math.max(0, bytes.length - 65_557);
  let eocd = -1;
  for (let i = bytes.length - 22; i >= from; i--) {
    if (bytes.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) return undefined;
  const count = bytes.readUInt16LE(eocd + 10);
  const start = bytes.readUInt32LE(eocd + 16);
  if (count > maxEntries) throw new SourceError(`the DOCX holds more than ${maxEntries} parts`);
  const entries: ZipEntry[] = [];
  let at = start;
  for (let n = 0; n < count; n++) {
    if (at + 46 > bytes.length || bytes.readUInt32LE(at) !== 0x02014b50) return undefined;
    const nameLength = bytes.readUInt16LE(at + 28);
    const extraLength = bytes.readUInt16LE(at + 30);
    const commentLength = bytes.readUInt16LE(at + 32);
    entries.push({
      name: bytes.toString('utf8', at + 46, at + 46 + nameLength),
      method: bytes.readUInt16LE(at + 10),
      compressedSize: bytes.readUInt32LE(at + 20),
      localOffset: bytes.readUInt32LE(at + 42),
    });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** True when the bytes are a zip with the parts of a Word document. */
export function looksLikeDocx(bytes: Buffer): boolean {
  if (bytes.length < 30 || bytes.readUInt32LE(0) !== 0x04034b50) return false;
  try {
    const names = new Set(zipEntries(bytes)?.map((entry) => entry.name));
    return names.has('word/document.xml') && names.has('[Content_Types].xml');
  } catch {
    return true; // too many parts: a zip that claims to be a document, refused by the limits instead
  }
}

/** Inflates every entry under one budget; throws SourceError when the budget is exceeded or an entry is broken. */
function checkUnpackedSize(bytes: Buffer, entries: readonly ZipEntry[], budget: number): void {
  let left = budget;
  for (const entry of entries) {
    const at = entry.localOffset;
    if (at + 30 > bytes.length || bytes.readUInt32LE(at) !== 0x04034b50) throw new SourceError('the DOCX is damaged');
    const dataStart = at + 30 + bytes.readUInt16LE(at + 26) + bytes.readUInt16LE(at + 28);
    const data = bytes.subarray(dataStart, dataStart + entry.compressedSize);
    let size: number;
    if (entry.method === 0) size = data.length;
    else if (entry.method === 8) {
      try {
        size = inflateRawSync(data, { maxOutputLength: Math.max(left, 1) }).length;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') size = Number.POSITIVE_INFINITY;
        else throw new SourceError('the DOCX is damaged');
      }
    } else throw new SourceError('the DOCX uses an unsupported compression');
    left -= size;
    if (left < 0) {
      throw new SourceError(`the DOCX unpacks to more than ${Math.floor(budget / 1024 / 1024)} MB`);
    }
  }
}

/** The text of a DOCX; throws SourceError on a broken, hostile or oversized file. */
export async function docxText(
  input: Uint8Array,
  limits: { maxUnpackedBytes?: number; timeoutMs?: number } = {},
): Promise<string> {
  const bytes = Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  const timeoutMs = limits.timeoutMs ?? DOCX_LIMITS.timeoutMs;
  const entries = zipEntries(bytes);
  if (!entries) throw new SourceError('the file is not a readable DOCX');
  checkUnpackedSize(bytes, entries, limits.maxUnpackedBytes ?? DOCX_LIMITS.maxUnpackedBytes);
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new SourceError(`the DOCX took longer than ${timeoutMs / 1000} s to read`)),
      timeoutMs,
    );
  });
  try {
    const { value } = await Promise.race([
      mammoth.convertToHtml(
        { buffer: bytes },
        { ignoreEmptyParagraphs: true, convertImage: mammoth.images.imgElement(async () => ({ src: '' })) },
      ),
      expired,
    ]);
    return htmlToText(value).text;
  } catch (error) {
    if (error instanceof SourceError) throw error;
    throw new SourceError('the file is not a readable DOCX');
  } finally {
    clearTimeout(timer);
  }
}
