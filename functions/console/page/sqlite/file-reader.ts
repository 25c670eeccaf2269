import type { ByteReader } from './byte-reader-vfs.ts';

// A dedicated Worker's synchronous file reader (not in TypeScript's DOM library, which the page compiles against).
declare const FileReaderSync: new () => { readAsArrayBuffer(blob: Blob): ArrayBuffer };

/**
 * A picked file as a ByteReader, for a dedicated Worker (FileReaderSync exists only there): each read is one
 * File.slice, so the browser reads only the ranges SQLite asks for and never the whole file.
 */
export function fileByteReader(file: Blob): ByteReader {
  const reader = new FileReaderSync();
  return {
    size: file.size,
    read: (offset, length) => new Uint8Array(reader.readAsArrayBuffer(file.slice(offset, offset + length))),
  };
}
