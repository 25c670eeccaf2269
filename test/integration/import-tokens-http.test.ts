import { afterAll, describe, expect, it } from 'vitest';
import type { RowValues } from '#functions/import-legacygw/families/family';
import type { ImportReport } from '#shared/schemas/import-report';
import { legacyKey, ONE_API } from '#test/fixtures/tokens/legacy-tokens';
import { useTestServer } from '#test/support/local-server';
import { callProxy, type Exchange, expectData, expectNoSecrets } from './import-http.helpers.ts';
import { ROWS_PATH } from './import-rows.helpers.ts';

// The token import through HTTP: the rows route with `tokens` (a SQLite gateway's tables, as the console and the CLI send them)
// carries One API's tokens over; each legacy key then opens the relay where One API would have accepted it.

const server = useTestServer({ LOG_LEVEL: 'DEBUG' });
const exchanges: Exchange[] = [];
const SECRETS = ONE_API.tokens.flatMap((t) => [t.key ?? '', `sk-${t.key}`]).filter((k) => k.length > 3);

/** Rows as a sent table: the columns of the first row, every row's values in that order. */
function sent(rows: readonly RowValues[]) {
  const columns = Object.keys(rows[0] ?? {});
  return { columns, rows: rows.map((row) => columns.map((c) => row[c] ?? null)) };
}

const BODY = {
  columns: ['id', 'type', 'key', 'status', 'base_url', 'models'],
  rows: [],
  tokens: { tokens: sent(ONE_API.tokens), users: sent(ONE_API.users), options: sent(ONE_API.options) },
};

async function call(json: unknown): Promise<Exchange> {
  const exchange = await callProxy(server, { method: 'POST', path: ROWS_PATH, json });
  exchanges.push(exchange);
  return exchange;
}

async function relayStatus(token: string): Promise<number> {
  const response = await fetch(`${server.url}/v1/models`, { headers: { Authorization: `Bearer ${token}` } });
  await response.text();
  return response.status;
}

afterAll(() => {
  expectNoSecrets(exchanges, { server, extra: SECRETS });
});

describe('POST /api/channels/import/rows with tokens', () => {
  it('previews, then imports legacy tokens as relay keys that open the relay with the same secret', async () => {
    const preview = expectData<ImportReport>(await call({ ...BODY, dryRun: true }));
    expect(await relayStatus(`sk-${legacyKey(1)}`)).toBe(401);

    const report = expectData<ImportReport>(await call(BODY));

    expect(preview.tokens).toEqual(report.tokens);
    expect(report.tokens).toMatchObject({ read: 6, created: 5, skipped: 1, unchanged: 0 });
    expect(await relayStatus(`sk-${legacyKey(1)}`)).toBe(200);
    expect(await relayStatus(legacyKey(1))).toBe(200);
    // Disabled, expired and exhausted at the source: refused here too.
    for (const n of [2, 3, 4]) expect(await relayStatus(legacyKey(n))).toBe(401);
    const again = expectData<ImportReport>(await call(BODY));
    expect(again.tokens).toMatchObject({ created: 0, unchanged: 5, skipped: 1 });
  });

  it('answers 400 naming the table for a malformed tokens table', async () => {
    const exchange = await call({ ...BODY, tokens: { tokens: { columns: ['id'], rows: [[1, 2]] } } });

    expect(exchange.status).toBe(400);
    expect((exchange.body as { message: string }).message).toMatch(/tokens\.tokens/);
  });
});
