import { describe, expect, it } from 'vitest';
import { CORE_COLUMNS, hasByteLimit, overLimitColumns } from '#functions/import-legacygw/limits';

// The SQL sources list, in one column, the positions of the columns whose value was over its limit
// (docs/channel-import.md, "Limits"); a hostile server may send anything there.
const select = CORE_COLUMNS;
const bounded = new Set(select.flatMap((column, at) => (hasByteLimit(column) ? [at] : [])));
const at = (name: string) => String(select.findIndex((c) => c.name === name));

describe('the columns a source lists as over their limit', () => {
  it('names each bounded column listed, once, in the order listed', () => {
    expect(overLimitColumns(`${at('models')},${at('key')},${at('models')}`, select, bounded)).toEqual([
      'models',
      'key',
    ]);
  });

  it('names none for an empty or NULL listing', () => {
    expect(overLimitColumns('', select, bounded)).toEqual([]);
    expect(overLimitColumns(null, select, bounded)).toEqual([]);
  });

  it('ignores positions of columns the SELECT did not bound, out of range, or not plain decimal', () => {
    const junk = [at('id'), at('name'), '-1', '999', 'abc', '', ' 2', '0x2', '2e0', '02.0'].join(',');

    expect(overLimitColumns(junk, select, bounded)).toEqual([]);
    expect(overLimitColumns(`${junk},${at('group')}`, select, bounded)).toEqual(['group']);
  });
});
