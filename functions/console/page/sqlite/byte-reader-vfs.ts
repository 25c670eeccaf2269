import type { Sqlite3Static } from '@sqlite.org/sqlite-wasm';

/*
 * A read-only SQLite VFS over a synchronous byte reader, so that SQLite reads only the pages a query needs (the
 * schema and the `channels` table's b-tree) and never the whole file. The same code runs in a browser Worker (the
 * reader is FileReaderSync over File.slice) and in Node (fs.readSync on a file descriptor). Modelled on the
 * "opfs-sahpool" VFS that ships with @sqlite.org/sqlite-wasm: struct-bound JS methods that never throw into C.
 */

/** A file as random-access bytes. `read` may return fewer bytes than asked only at the end of the file. */
export interface ByteReader {
  readonly size: number;
  read(offset: number, length: number): Uint8Array;
}

/** A file registered with the VFS, by the name SQLite opens it under. */
export interface VfsFile {
  readonly name: string;
  /** The first error the reader threw, if any (SQLite only sees an I/O error code). */
  readerError(): unknown;
  /** Whether the file's header asked for WAL mode (presented to SQLite as a rollback-journal file). */
  walHeader(): boolean;
  unregister(): void;
}

export const VFS_NAME = 'channels-byte-reader';

interface Registered {
  readonly reader: ByteReader;
  error: unknown;
  wal: boolean;
}

interface ReaderVfs {
  readonly files: Map<string, Registered>;
  next: number;
}

const installed = new WeakMap<Sqlite3Static, ReaderVfs>();

/** Registers `reader` as a file of the read-only VFS (installed on first use) and returns its name. */
export function registerFile(sqlite3: Sqlite3Static, reader: ByteReader): VfsFile {
  const vfs = installed.get(sqlite3) ?? install(sqlite3);
  vfs.next += 1;
  const name = `channels-${vfs.next}.db`;
  const entry: Registered = { reader, error: undefined, wal: false };
  vfs.files.set(name, entry);
  return {
    name,
    readerError: () => entry.error,
    walHeader: () => entry.wal,
    unregister: () => vfs.files.delete(name),
  };
}

function install(sqlite3: Sqlite3Static): ReaderVfs {
  const { capi, wasm } = sqlite3;
  const state: ReaderVfs = { files: new Map(), next: 0 };
  // SQLite's open file handles (pointers into the WASM heap) to the file they read.
  const open = new Map<number, Registered>();

  const io = new capi.sqlite3_io_methods();
  // iVersion 1: no shared memory, no mmap. The struct's typing lacks the `$` member name; the runtime has it.
  (io as unknown as { $iVersion: number }).$iVersion = 1;
  const ioMethods = {
    xClose(pFile: number): number {
      open.delete(Number(pFile));
      return 0;
    },
    xRead(pFile: number, pDest: number, n: number, offset64: number | bigint): number {
      const file = open.get(Number(pFile));
      if (file === undefined) return capi.SQLITE_IOERR_READ;
      const offset = Number(offset64);
      const dest = Number(pDest);
      let bytes: Uint8Array;
      try {
        const available = Math.max(0, Math.min(n, file.reader.size - offset));
        bytes = available > 0 ? file.reader.read(offset, available) : new Uint8Array(0);
      } catch (e) {
        file.error ??= e;
        return capi.SQLITE_IOERR_READ;
      }
      const got = Math.min(bytes.length, n);
      // Re-read the heap view after the reader ran: a heap that grew meanwhile detaches older views.
      const heap = wasm.heap8u();
      heap.set(got === bytes.length ? bytes : bytes.subarray(0, got), dest);
      // A WAL-mode file is read as the rollback-journal file it is once checkpointed: without its -wal and -shm
      // files (never picked with it) SQLite would refuse to open it read-only.
      if (offset <= 18 && offset + got >= 20 && heap[dest + 18 - offset] === 2 && heap[dest + 19 - offset] === 2) {
        heap[dest + 18 - offset] = 1;
        heap[dest + 19 - offset] = 1;
        file.wal = true;
      }
      if (got < n) {
        heap.fill(0, dest + got, dest + n);
        return capi.SQLITE_IOERR_SHORT_READ;
      }
      return 0;
    },
    xWrite: (): number => capi.SQLITE_READONLY,
    xTruncate: (): number => capi.SQLITE_READONLY,
    xSync: (): number => 0,
    xFileSize(pFile: number, pSize64: number): number {
      const file = open.get(Number(pFile));
      if (file === undefined) return capi.SQLITE_IOERR_FSTAT;
      wasm.poke64(pSize64, BigInt(file.reader.size));
      return 0;
    },
    // Nobody else writes through this handle and the file is a snapshot the operator picked: no locks.
    xLock: (): number => 0,
    xUnlock: (): number => 0,
    xCheckReservedLock(_pFile: number, pOut: number): number {
      wasm.poke32(pOut, 0);
      return 0;
    },
    xFileControl: (): number => capi.SQLITE_NOTFOUND,
    xSectorSize: (): number => 4096,
    // Immutable: SQLite takes no locks, looks for no journal and never checks whether the file changed.
    xDeviceCharacteristics: (): number => capi.SQLITE_IOCAP_IMMUTABLE,
  };

  const vfs = new capi.sqlite3_vfs();
  const defaultVfs = capi.sqlite3_vfs_find(null);
  const fallback = defaultVfs ? new capi.sqlite3_vfs(defaultVfs) : null;
  vfs.$iVersion = 1;
  // The typings put structInfo on instances; the runtime has it on the struct type.
  vfs.$szOsFile = (capi.sqlite3_file as unknown as { structInfo: { sizeof: number } }).structInfo.sizeof;
  vfs.$mxPathname = 512;
  const vfsMethods: Record<string, (...args: never[]) => number> = {
    xOpen(_pVfs: number, zName: number, pFile: number, flags: number, pOutFlags: number): number {
      const name = zName ? wasm.cstrToJs(zName) : null;
      const file = name === null ? undefined : state.files.get(name);
      // Only the main database opens: an immutable read-only file needs no journal, WAL or temporary file here
      // (temporary storage is memory, set when the database is opened).
      if (file === undefined || (flags & capi.SQLITE_OPEN_MAIN_DB) === 0) return capi.SQLITE_CANTOPEN;
      open.set(Number(pFile), file);
      const handle = new capi.sqlite3_file(pFile);
      handle.$pMethods = io.pointer;
      handle.dispose();
      if (pOutFlags) wasm.poke32(pOutFlags, (flags & ~capi.SQLITE_OPEN_READWRITE) | capi.SQLITE_OPEN_READONLY);
      return 0;
    },
    xDelete: (): number => capi.SQLITE_IOERR_DELETE,
    xAccess(_pVfs: number, _zName: number, _flags: number, pOut: number): number {
      // Asked only about journal and WAL files beside the database: there are none.
      wasm.poke32(pOut, 0);
      return 0;
    },
    xFullPathname(_pVfs: number, zName: number, nOut: number, pOut: number): number {
      return wasm.cstrncpy(pOut, zName, nOut) < nOut ? 0 : capi.SQLITE_CANTOPEN;
    },
    xSleep: (): number => 0,
    xCurrentTime(_pVfs: number, pOut: number): number {
      wasm.poke(pOut, 2440587.5 + Date.now() / 864e5, 'double');
      return 0;
    },
    xGetLastError: (): number => 0,
  };
  const randomness = vfs as unknown as { $xRandomness: number };
  if (fallback) {
    randomness.$xRandomness = (fallback as unknown as { $xRandomness: number }).$xRandomness;
    fallback.dispose();
  }
  if (!randomness.$xRandomness) {
    vfsMethods.xRandomness = (_pVfs: number, nOut: number, pOut: number): number => {
      const heap = wasm.heap8u();
      for (let i = 0; i < nOut; i += 1) heap[Number(pOut) + i] = Math.floor(Math.random() * 256);
      return nOut;
    };
  }
  sqlite3.vfs.installVfs({
    io: { struct: io, methods: ioMethods as never },
    vfs: { struct: vfs, methods: vfsMethods as never, name: VFS_NAME },
  });
  installed.set(sqlite3, state);
  return state;
}
