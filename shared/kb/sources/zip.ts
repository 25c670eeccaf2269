/*
 * A zip's central directory, read without unpacking anything (shared/kb/sources/docx.ts): enough to tell a Word
 * document from another zip and to bound what unpacking it would cost.
 */
import { SourceError } from '../contract.ts';

export const DOCX_LIMITS = Object.freeze({ maxEntries: 2000, maxUnpackedBytes: 64 * 1024 * 1024, timeoutMs: 20_000 });

export interface ZipEntry {
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
