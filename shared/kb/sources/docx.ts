import { inflateRawSync } from 'node:zlib';
import { SourceError } from '../contract.ts';
import { DOCX_LIMITS, type ZipEntry, zipEntries } from './zip.ts';

/*
 * DOCX text with mammoth (docs/knowledge-base-sources.md, "Limits"). mammoth unzips in memory, so the zip is checked
 * first, by its own central directory: at most MAX_ENTRIES entries, and every entry really inflated here under a cap
 * (zlib's maxOutputLength), so a zip bomb, whatever sizes it declares, stops at DOCX_LIMITS.maxUnpackedBytes before
 * mammoth sees it. mammoth's HTML goes through the same HTML-to-text as pages, so headings, lists and tables keep
 * their lines. The whole read has a deadline.
 */

export { DOCX_LIMITS };

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
    // Loaded on first use: functions that only check an upload's type never load mammoth.
    const [{ default: mammoth }, { htmlToText }] = await Promise.all([import('mammoth'), import('./html.ts')]);
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
