/** Rows whose type an older version of another family reads differently (docs/channel-import.md, "Ambiguity"). */

import type { Family } from './families/family.ts';

export interface Lookalike {
  see(typeText: string | null | undefined): void;
  note(): string | undefined;
}

/** Watches the types of a table read as `family` when its columns are also those of its lookalike family's. */
export function lookalikeOf(
  family: Family,
  columns: ReadonlySet<string>,
  families: readonly Family[],
): Lookalike | undefined {
  const other = family.lookalike?.applies(columns)
    ? families.find((f) => f.kind === family.lookalike?.kind)
    : undefined;
  if (other === undefined) return undefined;
  const types = new Set<number>();
  let rows = 0;
  return {
    see(typeText) {
      const text = typeText?.trim() ?? '';
      if (!/^\d{1,9}$/.test(text)) return;
      const type = Number(text);
      if (family.types.get(type)?.provider === other.types.get(type)?.provider) return;
      rows += 1;
      if (types.size < 20) types.add(type);
    },
    note() {
      if (rows === 0) return undefined;
      const listed = [...types].sort((a, b) => a - b).join(', ');
      return (
        `The table's columns are also those of an older ${other.name}, which reads the type of ${rows} row(s) ` +
        `differently (types ${listed}${types.size < rows && types.size === 20 ? ', ...' : ''}). It was read as ` +
        `${family.name}'s; if ${other.name} wrote it, import it again with "family": "${other.kind}".`
      );
    },
  };
}
