import { describe, expect, it } from 'vitest';
import { GATEWAYS, gatewaySql } from '#test/fixtures/tokens/gateway-tokens';
import { type Exchange, expectError, expectNoSecrets, expectReport, useImportHarness } from './import-http.helpers.ts';

// docs/relay.md, "Keys carried over from the legacy gateway": `"tokens": true` on the DSN route, at its edges: no tokens
// table, a value over its limit never fetched, the tokens table over the row cap. (Each family and engine end to end:
// legacy-keys-e2e.test.ts.)

const { db, server, channels, callImport } = useImportHarness({ LEGACYGW_MAX_ROWS: '40' });
const exchanges: Exchange[] = [];
const UPSTREAM = 'http://127.0.0.1:9';

async function importing(sql: string, json: Record<string, unknown> = {}): Promise<Exchange> {
  const database = await db.createDatabase(undefined, sql);
  const exchange = await callImport({ json: { dsn: db.dsn(database), tokens: true, ...json } });
  exchanges.push(exchange);
  return exchange;
}

describe('POST /api/channels/import/legacygw with "tokens": true', () => {
  it('answers 400 and writes nothing when the database has no tokens table', async () => {
    await channels.clear();
    const sql = gatewaySql('oneapi', 'mysql', UPSTREAM)
      .replace(/CREATE TABLE `tokens`[^;]*;/, '')
      .replace(/INSERT INTO `tokens`[^;]*;/g, '');

    const exchange = await importing(sql);

    expectError(exchange, 400, /no tokens table with the columns id and key/);
    expect(await channels.scan()).toEqual([]);
  });

  it('answers 400 naming the grant, before writing, when the MySQL user may read channels but not tokens', async () => {
    await channels.clear();
    const database = await db.createDatabase(undefined, gatewaySql('oneapi', 'mysql', UPSTREAM));
    const user = `ch${Date.now() % 1_000_000}`;
    await db.query(`CREATE USER '${user}'@'%' IDENTIFIED BY 'channels-only-pw'`);
    await db.query(`GRANT SELECT ON \`${database}\`.\`channels\` TO '${user}'@'%'`);
    const exchange = await callImport({
      json: { dsn: db.dsn(database, { user, password: 'channels-only-pw' }), tokens: true },
    });
    exchanges.push(exchange);

    // information_schema lists only what the user may read: to it, the tokens table is not there.
    expectError(
      exchange,
      400,
      /no tokens table with the columns id and key, or the user may not read it \(grant SELECT/,
    );
    expect(await channels.scan()).toEqual([]);
  });

  it('skips a token whose key is over its limit without fetching it, naming the limit', async () => {
    // A hostile server's column may hold anything: widened here to hold a key of 129 bytes.
    const sql = `${gatewaySql('newapi', 'mysql', UPSTREAM)}\nALTER TABLE \`tokens\` MODIFY \`key\` text;\nINSERT INTO \`tokens\` (\`id\`, \`user_id\`, \`key\`, \`status\`) VALUES (99, 1, REPEAT('x', 129), 1);`;

    const report = expectReport(await importing(sql, { dryRun: true }));

    expect(report.tokens?.items).toContainEqual({ legacyId: '99', reason: 'over its limit: key (over 128 bytes)' });
    expect(report.tokens?.read).toBe(GATEWAYS.newapi.tokens.length + 1);
  });

  it('refuses a tokens table over the row cap (LEGACYGW_MAX_ROWS) before reading it', async () => {
    const extra = Array.from({ length: 41 }, (_, i) => `(${1000 + i}, 1, 'k${i}', 1)`).join(', ');
    const sql = `${gatewaySql('oneapi', 'mysql', UPSTREAM)}\nINSERT INTO \`tokens\` (\`id\`, \`user_id\`, \`key\`, \`status\`) VALUES ${extra};`;

    const exchange = await importing(sql, { dryRun: true });

    expectError(exchange, 400, /The tokens table has too many rows \(\d+ rows; at most 40/);
    expectNoSecrets(exchanges, { server, mysqlPassword: db.password, logs: false });
  });
});
