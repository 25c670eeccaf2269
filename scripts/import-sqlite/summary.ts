import type { SummedReport } from '#shared/import-rows';
import { shown } from './terminal.ts';

/*
 * The summary `npm run import:sqlite` writes for people on stderr (scripts/import-sqlite/cli.ts): what the import did or
 * would do, lost routes first, every text from the file or the proxy made terminal-safe (terminal.ts).
 */

/** The report in words: what the import did (or would do), lost routes first. */
export function summary(report: SummedReport, walMode = false): string[] {
  const n = (x: number) => x.toLocaleString('en');
  const lines: string[] = [];
  const verb = report.dryRun ? 'would be' : 'were';
  if (report.dryRun) lines.push('Dry run: nothing was written.');
  const lost = report.routes.items.filter((r) => r.imported === 0);
  if (report.routes.lost > 0) {
    const names = lost.slice(0, 20).map((r) => `${shown(r.model)} (${shown(r.group)})`);
    const more = report.routes.lost > names.length ? `, and ${n(report.routes.lost - names.length)} more` : '';
    lines.push(
      `${n(report.routes.lost)} route${report.routes.lost === 1 ? '' : 's'} ${report.dryRun ? 'would have' : report.routes.lost === 1 ? 'has' : 'have'} no channel after this import: ${names.join(', ')}${more}.`,
    );
    if (!report.exact.lost) {
      lines.push('  (sent in several calls: a route listed as lost may be served by rows of another call)');
    }
  } else if ((report.routes.unreadColumns ?? []).length > 0) {
    // A fork's columns decide routes the counts cannot see: never "no route is lost" then.
    lines.push(
      `No route the import reads is lost, but the table's ${report.routes.unreadColumns?.join(', ')} column(s) hold values that were not read: routes they decide are not checked.`,
    );
  } else if (report.routes.complete) {
    lines.push(`No route is lost: every model the enabled rows serve, in every group, still has a channel.`);
  } else {
    lines.push('No lost route among the routes counted, but not every route was counted: see below.');
  }
  if (report.routes.changed > 0) {
    const one = report.routes.changed === 1;
    lines.push(
      `${n(report.routes.changed)} ${one ? 'route keeps' : 'routes keep'} fewer channels than the gateway had.`,
    );
  }
  if (!report.routes.complete) {
    lines.push(
      'The table names more routes than an import counts (docs/channel-import.md, "Routes"): the route figures cover those counted, and a route not counted may be lost.',
    );
  }
  lines.push(
    `${n(report.source.rows)} rows of a ${report.source.kind} table in ${n(report.calls)} call${report.calls === 1 ? '' : 's'}: ${n(report.rows.imported)} imported, ${n(report.rows.skipped)} skipped.`,
  );
  const c = report.channels;
  lines.push(
    `Channels that ${verb} created: ${n(c.created)}, updated: ${n(c.updated)}, unchanged: ${n(c.unchanged)}, left as edited: ${n(c.edited)}.`,
  );
  if (report.stale !== undefined) {
    lines.push(
      `${n(report.stale.count)} stored channel${report.stale.count === 1 ? ' is' : 's are'} produced by no row of this file any more (left as they are; see "stale" in the JSON report).`,
    );
  }
  for (const note of report.notes ?? []) lines.push(note);
  const skipped = report.items.filter((i) => i.outcome === 'skipped');
  for (const item of skipped.slice(0, 20)) {
    if (item.outcome === 'skipped') lines.push(`  skipped row ${shown(String(item.legacyId))}: ${shown(item.reason)}`);
  }
  if (skipped.length > 20) lines.push(`  ... and ${n(skipped.length - 20)} more skipped rows (see the JSON report)`);
  const t = report.tokens;
  if (t) {
    lines.push(
      `Keys of ${n(t.read)} tokens that ${verb} created: ${n(t.created)}, updated: ${n(t.updated)}, unchanged: ${n(t.unchanged)}, left as edited: ${n(t.edited)}, skipped: ${n(t.skipped)}.`,
    );
  }
  if (walMode) {
    lines.push(
      'The file was in WAL mode: changes still in its -wal file were not read (stop the gateway, or checkpoint, and run again).',
    );
  }
  return lines;
}
