import { describe, expect, it } from 'vitest';
import { startStallingProxy } from '#test/support/fake-mysql';
import { FIXTURE_SQL } from './import.helpers.ts';
import { callImport, expectError, expectNoSecrets, expectReport, useImportHarness } from './import-http.helpers.ts';

const { db, server, channels } = useImportHarness({ LEGACYGW_DEADLINE_MS: '4000' });

describe('an import that runs past LEGACYGW_DEADLINE_MS', () => {
  it('answers 504 saying how many channels were written, and a re-run completes the import', async () => {
    const rows = 300;
    const keys = Array.from({ length: rows }, (_, i) => `sk-deadline-${i + 1}`);
    const database = await db.createDatabase(undefined, FIXTURE_SQL);
    await db.query(
      `DELETE FROM \`${database}\`.channels; INSERT INTO \`${database}\`.channels (id, type, \`key\`, status, name, base_url, models) VALUES ${keys
        .map((key, i) => `(${i + 1}, 1, '${key}', 1, 'deadline-${i + 1}', '', 'gpt-4o,gpt-4o-mini')`)
        .join(', ')}`,
    );
    await channels.clear();
    // A server that goes silent mid-result: the proxy passes 60% of the bytes a complete read takes.
    const proxy = await startStallingProxy(db.port);
    const throughProxy = `${db.user}:${db.password}@tcp(127.0.0.1:${proxy.port})/${database}`;
    try {
      const measure = await callImport(server, { json: { dsn: throughProxy, dryRun: true } });
      expect(measure.status).toBe(200);
      proxy.stallAfter(Math.floor((proxy.serverBytes[0] ?? 0) * 0.6));

      const stalled = await callImport(server, { json: { dsn: throughProxy } });

      expectError(stalled, 504, /^The import did not finish within its deadline; \d+ channel\(s\) were written\./);
      const written = Number(
        /(\d+) channel\(s\) were written/.exec((stalled.body as { message: string }).message)?.[1],
      );
      expect(written).toBeGreaterThan(0);
      expect(written).toBeLessThan(rows);
      expect(await channels.scan()).toHaveLength(written);

      const rerun = await callImport(server, { json: { dsn: db.dsn(database) } });

      expect(expectReport(rerun).channels).toEqual({
        created: rows - written,
        updated: 0,
        unchanged: written,
        edited: 0,
      });
      expect(await channels.scan()).toHaveLength(rows);
      expectNoSecrets([measure, stalled, rerun], { server, mysqlPassword: db.password, extra: keys });
    } finally {
      await proxy.close();
    }
  });
});
