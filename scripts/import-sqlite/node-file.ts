import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import sqlite3InitModule, { type Sqlite3Static } from '@sqlite.org/sqlite-wasm';
import type { ByteReader } from '#functions/console/page/sqlite/channels-file';

/** A file as a ByteReader over its descriptor (Node's side of the SQLite reader); `close` releases the descriptor. */
export interface FileByteReader extends ByteReader {
  close(): void;
}

/** Opens `path` read-only; reads are positioned `fs.readSync` calls, so only the bytes asked for are read. */
export function openFileReader(path: string): FileByteReader {
  const fd = openSync(path, 'r');
  let size: number;
  try {
    size = fstatSync(fd).size;
  } catch (e) {
    closeSync(fd);
    throw e;
  }
  let closed = false;
  return {
    size,
    read(offset, length) {
      const bytes = new Uint8Array(length);
      let got = 0;
      while (got < length) {
        const n = readSync(fd, bytes, got, length - got, offset + got);
        if (n === 0) break;
        got += n;
      }
      return got === length ? bytes : bytes.subarray(0, got);
    },
    close() {
      if (closed) return;
      closed = true;
      closeSync(fd);
    },
  };
}

let loaded: Promise<Sqlite3Static> | undefined;

/** The SQLite WebAssembly module, initialised once per process. */
export function loadSqlite(): Promise<Sqlite3Static> {
  loaded ??= sqlite3InitModule().then((sqlite3) => {
    // The JS API warns on every failed step with the statement's SQL; callers report failures themselves.
    sqlite3.config.warn = () => {};
    return sqlite3;
  });
  return loaded;
}
