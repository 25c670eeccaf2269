import { rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Sqlite3Static } from '@sqlite.org/sqlite-wasm';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type ByteReader,
  type CellValue,
  type ChannelsFile,
  openChannelsFile,
  READER_CAPS,
  SqliteFileError,
} from '#functions/console/page/sqlite/channels-file';
import { isOversizeValue } from '#shared/oversize-value';
import { loadSqlite, openFileReader } from '../../scripts/import-sqlite/node-file.ts';
import { sqliteFixtureBytes, writeLargeSqliteFile } from '../support/sqlite-fixtures.ts';
import { useTempDir } from '../support/temp-dir.ts';

const MiB = 1024 * 1024;

/** A reader over bytes in memory that records every range asked for. */
function memoryReader(bytes: Uint8Array): ByteReader & { asked: number } {
  const reader = {
    size: bytes.length,
    asked: 0,
    read(offset: number, length: number) {
      reader.asked += length;
      return bytes.slice(offset, offset + length);
    },
  };
  return reader;
}

function allRows(file: ChannelsFile, batchSize?: number): CellValue[][] {
  return [...file.batches(batchSize)].flat();
}

function problemOf(open: () => unknown): string {
  try {
    open();
  } catch (e) {
    if (e instanceof SqliteFileError) return `${e.problem}: ${e.message}`;
    throw e;
  }
  throw new Error('expected the file to be refused');
}

let sqlite3: Sqlite3Static;
let oneApi: Uint8Array;
let newApi: Uint8Array;

beforeAll(async () => {
  sqlite3 = await loadSqlite();
  oneApi = await sqliteFixtureBytes('oneapi-channels');
  newApi = await sqliteFixtureBytes('newapi-newest-channels');
});

describe('reading a gateway SQLite file', () => {
  it("lists the columns of One API's channels table in the table's order and counts its rows", () => {
    const file = openChannelsFile(sqlite3, memoryReader(oneApi));
    try {
      expect(file.columns()).toEqual(
        'id type key status name weight created_time test_time response_time base_url other balance balance_updated_time models group used_quota model_mapping priority config system_prompt'.split(
          ' ',
        ),
      );
      expect(file.count()).toBe(22);
      expect(file.walMode).toBe(false);
    } finally {
      file.close();
    }
  });

  it('yields every row in id order, in batches of the asked size, with the values SQLite holds', () => {
    const file = openChannelsFile(sqlite3, memoryReader(oneApi));
    const db = new sqlite3.oo1.DB(':memory:', 'c');
    try {
      const batches = [...file.batches(5)];
      expect(batches.map((b) => b.length)).toEqual([5, 5, 5, 5, 2]);
      const rows = batches.flat();
      // The same bytes read with SQLite's own in-memory reader.
      const p = sqlite3.wasm.allocFromTypedArray(oneApi);
      sqlite3.capi.sqlite3_deserialize(
        db,
        'main',
        p,
        oneApi.length,
        oneApi.length,
        sqlite3.capi.SQLITE_DESERIALIZE_FREEONCLOSE,
      );
      const expected = db.selectArrays('SELECT * FROM channels ORDER BY id');
      expect(rows).toEqual(expected);
      const key = file.columns().indexOf('key');
      // Line breaks made by the MySQL form's CONCAT/CHAR survive as they are.
      expect(rows[16]?.[key]).toBe('sk-fixture-oneapi-multi-a\nsk-fixture-oneapi-multi-b\n');
    } finally {
      db.close();
      file.close();
    }
  });

  it("reads New API's channel_info, which New API stores as a BLOB, as its UTF-8 text", () => {
    const file = openChannelsFile(sqlite3, memoryReader(newApi));
    try {
      const info = file.columns().indexOf('channel_info');
      expect(file.columns()).toContain('open_ai_organization');
      const first = allRows(file)[0];
      expect(first?.[info]).toBe(
        '{"is_multi_key":false,"multi_key_size":0,"multi_key_status_list":null,"multi_key_polling_index":0,"multi_key_mode":""}',
      );
    } finally {
      file.close();
    }
  });

  it('carries an integer beyond 2^53 as its exact text and a safe one as a number', async () => {
    const bytes = await sqliteFixtureBytes('oneapi-channels', (db) =>
      db.exec(
        'UPDATE channels SET used_quota = 9007199254740993 WHERE id = 1; UPDATE channels SET balance = 1.5 WHERE id = 2',
      ),
    );
    const file = openChannelsFile(sqlite3, memoryReader(bytes));
    try {
      const rows = allRows(file);
      const quota = file.columns().indexOf('used_quota');
      const balance = file.columns().indexOf('balance');
      expect(rows[0]?.[quota]).toBe('9007199254740993');
      expect(rows[0]?.[0]).toBe(1);
      expect(rows[1]?.[balance]).toBe(1.5);
    } finally {
      file.close();
    }
  });

  it('sends a value over its cap as the oversize marker without reading it into memory', async () => {
    const bytes = await sqliteFixtureBytes('oneapi-channels', (db) =>
      db.exec(`UPDATE channels SET system_prompt = zeroblob(${READER_CAPS.other + 1}) WHERE id = 1;
               UPDATE channels SET "key" = zeroblob(${READER_CAPS.key + 1}) WHERE id = 2;
               UPDATE channels SET base_url = printf('%.*c', 10000, 'x') WHERE id = 3;
               UPDATE channels SET config = zeroblob(${READER_CAPS.other}) WHERE id = 4`),
    );
    const file = openChannelsFile(sqlite3, memoryReader(bytes));
    try {
      const columns = file.columns();
      const rows = allRows(file);
      expect(rows[0]?.[columns.indexOf('system_prompt')]).toEqual({ oversizeBytes: READER_CAPS.other + 1 });
      expect(isOversizeValue(rows[0]?.[columns.indexOf('system_prompt')])).toBe(true);
      expect(rows[1]?.[columns.indexOf('key')]).toEqual({ oversizeBytes: READER_CAPS.key + 1 });
      // Within the reader's cap: sent whole, and the import applies its own, smaller limit for the column.
      expect(rows[2]?.[columns.indexOf('base_url')]).toHaveLength(10_000);
      expect(rows[3]?.[columns.indexOf('config')]).toHaveLength(READER_CAPS.other);
    } finally {
      file.close();
    }
  });

  it('cuts a name to 65 characters in its SELECT, as the SQL sources do, however long it is', async () => {
    const bytes = await sqliteFixtureBytes('oneapi-channels', (db) =>
      db.exec(`UPDATE channels SET name = printf('%.*c', ${READER_CAPS.other + 10}, 'é') WHERE id = 1;
               UPDATE channels SET name = 'short' WHERE id = 2`),
    );
    const file = openChannelsFile(sqlite3, memoryReader(bytes));
    try {
      const name = file.columns().indexOf('name');
      const rows = allRows(file);
      expect(rows[0]?.[name]).toBe('é'.repeat(65));
      expect(rows[1]?.[name]).toBe('short');
    } finally {
      file.close();
    }
  });

  it('does not read an oversize last column of a row at all', async () => {
    const size = 20 * MiB;
    const bytes = await sqliteFixtureBytes('oneapi-channels', (db) =>
      db.exec(`UPDATE channels SET system_prompt = zeroblob(${size}) WHERE id = 5`),
    );
    const reader = memoryReader(bytes);
    const file = openChannelsFile(sqlite3, reader);
    try {
      const rows = allRows(file);
      expect(rows[4]?.[file.columns().indexOf('system_prompt')]).toEqual({ oversizeBytes: size });
      expect(bytes.length).toBeGreaterThan(size);
      // octet_length() takes the size from the record header: none of the value's overflow pages is read.
      expect(reader.asked).toBeLessThan(64 * 1024);
      expect(file.bytesRead()).toBe(reader.asked);
    } finally {
      file.close();
    }
  });

  it('reads a WAL-mode file as its checkpointed content and says it was in WAL mode', () => {
    const bytes = oneApi.slice();
    bytes[18] = 2;
    bytes[19] = 2;
    const file = openChannelsFile(sqlite3, memoryReader(bytes));
    try {
      expect(file.count()).toBe(22);
      expect(file.walMode).toBe(true);
    } finally {
      file.close();
    }
  });

  it('opens several files at once and after others were closed', () => {
    const a = openChannelsFile(sqlite3, memoryReader(oneApi));
    const b = openChannelsFile(sqlite3, memoryReader(newApi));
    expect(a.columns()).not.toEqual(b.columns());
    a.close();
    a.close();
    const c = openChannelsFile(sqlite3, memoryReader(oneApi));
    expect(c.count()).toBe(22);
    b.close();
    c.close();
  });
});

describe('a file that cannot be read', () => {
  it('refuses a file that is not SQLite', () => {
    const text = new TextEncoder().encode(`${'not a database, just text. '.repeat(100)}`);
    expect(problemOf(() => openChannelsFile(sqlite3, memoryReader(text)))).toBe(
      'not-sqlite: The file is not a SQLite database (or it is encrypted): it does not start with the SQLite header',
    );
  });

  it('refuses an empty file and one shorter than the header', () => {
    expect(problemOf(() => openChannelsFile(sqlite3, memoryReader(new Uint8Array(0))))).toBe(
      'not-sqlite: The file is not a SQLite database: it holds only 0 bytes',
    );
    expect(problemOf(() => openChannelsFile(sqlite3, memoryReader(oneApi.slice(0, 50))))).toMatch(
      /^not-sqlite: .* 50 bytes$/,
    );
  });

  it('refuses an encrypted file (random bytes from the first byte on)', () => {
    const bytes = new Uint8Array(8192);
    for (let i = 0; i < bytes.length; i += 1) bytes[i] = (i * 7919 + 13) % 251;
    expect(problemOf(() => openChannelsFile(sqlite3, memoryReader(bytes)))).toMatch(/^not-sqlite: .*encrypted/);
  });

  it('refuses a header with an invalid page size', () => {
    const bytes = oneApi.slice();
    bytes[16] = 0x03;
    bytes[17] = 0x00;
    expect(problemOf(() => openChannelsFile(sqlite3, memoryReader(bytes)))).toBe(
      'not-sqlite: The file is not a readable SQLite database: its page size 768 is invalid',
    );
  });

  it('refuses a file without a channels table', async () => {
    const bytes = await sqliteFixtureBytes('oneapi-channels', (db) =>
      db.exec('ALTER TABLE channels RENAME TO channel_backup'),
    );
    expect(problemOf(() => openChannelsFile(sqlite3, memoryReader(bytes)))).toBe(
      'no-channels-table: The file has no `channels` table: it is not a One API or New API database',
    );
  });

  it('refuses a channels view, which could run any query of the file', async () => {
    const bytes = await sqliteFixtureBytes('oneapi-channels', (db) =>
      db.exec('ALTER TABLE channels RENAME TO c; CREATE VIEW Channels AS SELECT * FROM c'),
    );
    expect(problemOf(() => openChannelsFile(sqlite3, memoryReader(bytes)))).toBe(
      "no-channels-table: The file's `channels` is a view, not a table: it is not a One API or New API database",
    );
  });

  it('reads a table named in another case, as SQLite names are', async () => {
    const bytes = await sqliteFixtureBytes('oneapi-channels', (db) =>
      db.exec('ALTER TABLE channels RENAME TO c; ALTER TABLE c RENAME TO CHANNELS'),
    );
    const file = openChannelsFile(sqlite3, memoryReader(bytes));
    try {
      expect(file.count()).toBe(22);
    } finally {
      file.close();
    }
  });

  it('refuses a channels table of more columns than any gateway has', async () => {
    const bytes = await sqliteFixtureBytes('oneapi-channels', (db) =>
      db.exec(
        `DROP TABLE channels; CREATE TABLE channels (id integer, ${Array.from({ length: 1_200 }, (_, i) => `c${i} text`).join(', ')})`,
      ),
    );
    expect(problemOf(() => openChannelsFile(sqlite3, memoryReader(bytes)))).toBe(
      "too-many-columns: The `channels` table has 1,201 columns (a gateway's has about 40): it is not a One API or New API table",
    );
  });

  it('refuses a truncated file, naming both sizes', () => {
    const cut = oneApi.slice(0, oneApi.length - 4096);
    expect(problemOf(() => openChannelsFile(sqlite3, memoryReader(cut)))).toBe(
      `truncated: The file is truncated: its header describes ${oneApi.length.toLocaleString('en')} bytes but it holds ${cut.length.toLocaleString('en')} (copy it again, with the gateway stopped)`,
    );
  });

  it('reports a damaged file whose header does not give its size (SQLITE_CORRUPT)', () => {
    const bytes = oneApi.slice();
    // An older writer's header (no valid page count), and the table's pages overwritten.
    bytes[95] = (bytes[95] ?? 0) ^ 0xff;
    bytes.fill(0xee, 4096);
    const outcome = problemOf(() => {
      const file = openChannelsFile(sqlite3, memoryReader(bytes));
      try {
        allRows(file);
      } finally {
        file.close();
      }
    });
    expect(outcome).toMatch(/^(corrupt: The file is damaged or truncated|not-sqlite: )/);
  });

  it('reports a reader that fails mid-way as unreadable, with its reason', () => {
    const inner = memoryReader(oneApi);
    let calls = 0;
    const failing: ByteReader = {
      size: inner.size,
      read(offset, length) {
        calls += 1;
        if (calls > 3) throw new Error('the file changed on disk');
        return inner.read(offset, length);
      },
    };
    expect(
      problemOf(() => {
        const file = openChannelsFile(sqlite3, failing);
        try {
          allRows(file);
        } finally {
          file.close();
        }
      }),
    ).toBe('unreadable: The file could not be read: the file changed on disk');
  });
});

describe('a large file', () => {
  const dir = useTempDir('sqlite-large-');

  it('reads only the schema and the channels table of a file over 200 MB whose logs table is most of it', async () => {
    const path = join(dir(), 'one-api.db');
    await writeLargeSqliteFile('oneapi-channels', path);
    const size = statSync(path).size;
    expect(size).toBeGreaterThan(200 * MiB);
    const reader = openFileReader(path);
    const file = openChannelsFile(sqlite3, reader);
    try {
      expect(file.count()).toBe(22);
      expect(allRows(file)).toHaveLength(22);
      // The channels table is a few pages; the bound leaves room for the schema and SQLite's own reads.
      expect(file.bytesRead()).toBeLessThan(1 * MiB);
    } finally {
      file.close();
      reader.close();
    }
  }, 120_000);

  it('reads the file through a descriptor, so a file removed after opening still reads', () => {
    const path = join(dir(), 'small.db');
    writeFileSync(path, oneApi);
    const reader = openFileReader(path);
    rmSync(path);
    const file = openChannelsFile(sqlite3, reader);
    try {
      expect(file.count()).toBe(22);
      expect(reader.size).toBe(oneApi.length);
    } finally {
      file.close();
      reader.close();
    }
  });
});
