/**
 * The console's imports with "Also carry the gateway's keys over" (docs/relay.md, "Keys") in a real browser against the
 * local server, from a SQLite file and from a DSN: the preview counts the keys, the import makes each legacy token a
 * relay key that opens `/v1` with the same secret, and no legacy key is left in the page's DOM, fields or storage.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GATEWAYS, gatewaySql } from '#test/fixtures/tokens/gateway-tokens';
import { legacyKey, writeOneApiTokensFile } from '#test/fixtures/tokens/legacy-tokens';
import { pageStores } from '#test/support/browser';
import { useTempDir } from '#test/support/temp-dir';
import { expectCleanRun, previewImport, useConsoleWorld } from './console.helpers.ts';

const files = useConsoleWorld();
const dir = useTempDir('console-sqlite-tokens-');

describe("import from a SQLite file with the gateway's keys", () => {
  it('previews and imports the tokens as relay keys that open the relay with the same secret', async () => {
    const { world } = files;
    const path = join(dir(), 'one-api.db');
    await writeOneApiTokensFile(path);
    const { page, recorder } = await files.openSignedIn();

    await page.getByLabel('SQLite file of the gateway (one-api.db)').setInputFiles(path);
    await page.getByLabel("Also carry the gateway's keys over (its tokens)").check();
    await page.getByRole('button', { name: 'Read the file and preview' }).click();
    await page.getByRole('heading', { name: 'Preview: nothing is written yet' }).waitFor({ timeout: 60_000 });
    const counts = async () =>
      (await page.locator('#report dl div').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
    expect(await counts()).toContain('Keys to create 5');
    expect(await counts()).toContain('Tokens skipped 1');

    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await page.getByRole('heading', { name: 'Import done' }).waitFor({ timeout: 60_000 });

    expect(await counts()).toContain('Keys created 5');
    const status = async (key: string) => {
      const response = await fetch(`${world.server.url}/v1/models`, { headers: { Authorization: `Bearer ${key}` } });
      await response.text();
      return response.status;
    };
    expect(await status(`sk-${legacyKey(1)}`)).toBe(200);
    expect(await status(legacyKey(2))).toBe(401);
    const { places, sessionStorage } = await pageStores(page);
    for (let n = 1; n <= 5; n += 1) {
      for (const text of Object.values(places)) expect(text).not.toContain(legacyKey(n));
      expect(sessionStorage).not.toContain(legacyKey(n));
    }
    expectCleanRun(world, recorder);
  }, 120_000);

  it("previews and imports a MySQL gateway's tokens through the DSN form", async () => {
    const { world } = files;
    const gateway = GATEWAYS.newapi;
    const database = await world.db.createDatabase(undefined, gatewaySql('newapi', 'mysql', 'http://127.0.0.1:9'));
    const dsn = world.db.dsn(database);
    const { page, recorder } = await files.openSignedIn();
    const counts = async () =>
      (await page.locator('#report dl div').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
    const carried = gateway.tokens.length - gateway.skipped;

    await page.getByLabel("Also carry the gateway's keys over (its tokens)").check();
    await previewImport(page, dsn);
    const preview = await counts();
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await page.getByRole('heading', { name: 'Import done' }).waitFor({ timeout: 60_000 });

    expect(preview).toContain(`Keys to create ${carried}`);
    expect(await counts()).toContain(`Keys created ${carried}`);
    const first = gateway.cases[0];
    const response = await fetch(`${world.server.url}/v1/models`, {
      headers: { Authorization: `Bearer ${first?.apiKey}` },
    });
    await response.text();
    expect(response.status).toBe(200);
    const { places, sessionStorage } = await pageStores(page);
    for (const token of gateway.tokens) {
      for (const text of Object.values(places)) expect(text).not.toContain(String(token.key));
      expect(sessionStorage).not.toContain(String(token.key));
    }
    expectCleanRun(world, recorder);
  }, 120_000);
});
