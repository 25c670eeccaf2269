import { DeadlineExceededError, ProxyApiError } from '#shared/errors';
import type { ImportReport } from '../report.ts';
import type { RowSource } from '../source.ts';
import { importTokens, type TokenImportDeps } from './import-tokens.ts';
import { checkTokensTable, readTokenTables } from './token-tables.ts';

/*
 * `"tokens": true` on a database import (docs/relay.md, "Keys carried over from the legacy gateway"): after the channels,
 * the same source's `tokens`, `users` and `options` tables become relay keys, ratios and routing options, read as the
 * family the channels table was detected as.
 */

/** What the token stage of a database import needs. */
export interface SourceTokensDeps {
  /** Absent where the function has no relay keys table: the request is then refused. */
  tokens?: Omit<TokenImportDeps, 'hmacKey' | 'now'>;
  channelIdKey: () => Promise<Buffer>;
  now: () => Date;
  config: { maxRows: number };
}

/** Checked before the channels are imported: the deployment can store keys, and the database has a tokens table. */
export async function checkTokensImport(source: RowSource, deps: SourceTokensDeps): Promise<void> {
  if (deps.tokens === undefined) throw new ProxyApiError(400, 'This deployment cannot import tokens');
  await checkTokensTable(source);
}

/**
 * Imports the source's tokens after its channels: the report gains `tokens`. At the deadline, the 504 counts the
 * channels the import wrote (the keys are written after them; running the same import again completes it).
 */
export async function importSourceTokens(
  source: RowSource,
  report: ImportReport,
  deadline: { readonly signal: AbortSignal; check(): void },
  deps: SourceTokensDeps,
): Promise<ImportReport> {
  const store = deps.tokens;
  if (store === undefined) throw new ProxyApiError(400, 'This deployment cannot import tokens');
  try {
    const tables = await readTokenTables(source, deps.config.maxRows, () => deadline.check());
    deadline.check();
    const tokens = await importTokens(
      { family: report.source.kind, ...tables, dryRun: report.dryRun },
      { ...store, hmacKey: deps.channelIdKey, now: deps.now },
    );
    return { ...report, tokens };
  } catch (e) {
    if (deadline.signal.aborted && !(e instanceof ProxyApiError)) {
      const written = report.dryRun ? 0 : report.channels.created + report.channels.updated;
      throw new DeadlineExceededError(written, { cause: e });
    }
    throw e;
  }
}
