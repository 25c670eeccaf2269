import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DONEHUB } from '#functions/import-legacygw/families/donehub';
import { ONEHUB } from '#functions/import-legacygw/families/onehub';

/*
 * The One Hub and Done Hub fixtures exist in GORM's MySQL and PostgreSQL forms; both must hold the same rows, and
 * each table's columns must be recognised as its own family's.
 */

const read = (name: string) => readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8');

/** The INSERTed values of a fixture with the dialects' spellings made equal (line breaks, booleans, quotes). */
function rowsOf(sql: string): string[] {
  return [...sql.matchAll(/^VALUES \((.*)\);$/gm)].map((m) =>
    m[1]!
      .replace(/CONCAT\(('(?:[^']|'')*'(?:, CHAR\(10\), '(?:[^']|'')*')*)\)/g, (_, parts: string) =>
        parts.replace(/', CHAR\(10\), '/g, '\n'),
      )
      .replace(/' \|\| chr\(10\) \|\| '/g, '\n')
      .replace(/\btrue\b/g, '1')
      .replace(/\bfalse\b/g, '0'),
  );
}

function columnsOf(sql: string): Set<string> {
  const create = /CREATE TABLE [`"]channels[`"] \(([\s\S]*?)\n\)/.exec(sql)?.[1] ?? '';
  return new Set([...create.matchAll(/^\s+[`"](\w+)[`"]/gm)].map((m) => m[1]!));
}

describe.each([
  ['onehub-channels', ONEHUB],
  ['donehub-channels', DONEHUB],
])('%s fixture', (name, family) => {
  const mysql = read(`${name}.sql`);
  const postgres = read(`${name}.pg.sql`);

  it('holds the same rows in its MySQL and PostgreSQL forms', () => {
    expect(rowsOf(mysql).length).toBeGreaterThan(10);
    expect(rowsOf(postgres)).toEqual(rowsOf(mysql));
  });

  it("has the same columns in both forms, recognised as the family's", () => {
    expect(columnsOf(postgres)).toEqual(columnsOf(mysql));
    expect(family.match(columnsOf(mysql))).toBeDefined();
  });
});
