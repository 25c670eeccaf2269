import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/** One measured figure against the baseline measured in the same run. */
export interface Figure {
  name: string;
  value: number;
  unit: string;
  /** The baseline's figure in the same unit; null when the figure has no baseline. */
  baseline: number | null;
  /** value / baseline; null without a baseline. */
  ratio: number | null;
  /** The target this figure is held to (docs/performance.md), when it has one. */
  target?: string;
  /** Whether the target is met; absent without a target. */
  ok?: boolean;
}

/** A target over a figure: which quantity is compared (`value` or `ratio`) and its upper or lower bound. */
export interface Target {
  of: 'value' | 'ratio';
  max?: number;
  min?: number;
}

/** Builds a figure; `ratio` is value/baseline, and `target` is evaluated when given. */
export function figure(
  name: string,
  value: number,
  unit: string,
  baseline: number | null = null,
  target?: Target,
): Figure {
  const ratio = baseline === null || baseline === 0 ? null : value / baseline;
  const out: Figure = { name, value: round(value), unit, baseline: baseline === null ? null : round(baseline), ratio };
  if (ratio !== null) out.ratio = Math.round(ratio * 1000) / 1000;
  if (target) {
    const subject = target.of === 'value' ? value : ratio;
    out.target = describeTarget(target, unit);
    out.ok =
      subject !== null &&
      (target.max === undefined || subject <= target.max) &&
      (target.min === undefined || subject >= target.min);
  }
  return out;
}

function describeTarget(target: Target, unit: string): string {
  const subject = target.of === 'value' ? 'value' : 'ratio';
  const suffix = target.of === 'value' ? ` ${unit}` : '';
  const parts: string[] = [];
  if (target.max !== undefined) parts.push(`${subject} <= ${target.max}${suffix}`);
  if (target.min !== undefined) parts.push(`${subject} >= ${target.min}${suffix}`);
  return parts.join(', ');
}

function round(n: number): number {
  if (Number.isInteger(n)) return n;
  return Math.abs(n) >= 100 ? Math.round(n * 10) / 10 : Math.round(n * 1000) / 1000;
}

/** The q-quantile (0..1) of `values` by the nearest-rank method. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) throw new Error('quantile of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return sorted[rank - 1]!;
}

/** The median of `values` (the mean of the two middle values when their count is even). */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error('median of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The figures as an aligned plain-text table. */
export function formatTable(figures: readonly Figure[]): string {
  const header = ['figure', 'value', 'baseline', 'ratio', 'target', 'ok'];
  const rows = figures.map((f) => [
    f.name,
    `${f.value} ${f.unit}`,
    f.baseline === null ? '-' : `${f.baseline} ${f.unit}`,
    f.ratio === null ? '-' : `${f.ratio.toFixed(3)}x`,
    f.target ?? '',
    f.ok === undefined ? '' : f.ok ? 'yes' : 'NO',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === 1 || i === 2 || i === 3 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/** Writes the run as JSON: `{ meta, figures }`, figures being `{ name, value, unit, baseline, ratio }`. */
export async function writeResults(file: string, meta: Record<string, unknown>, figures: readonly Figure[]) {
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, `${JSON.stringify({ meta, figures }, null, 2)}\n`);
}
