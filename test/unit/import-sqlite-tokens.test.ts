import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ImportReport } from '#shared/schemas/import-report';
import { legacyKey, writeOneApiTokensFile } from '#test/fixtures/tokens/legacy-tokens';
import { importReport } from '#test/support/import-report';
import { runImportSqliteCli } from '../../scripts/import-sqlite/cli.ts';
import { useTempDir } from '../support/temp-dir.ts';

// `npm run import:sqlite -- --tokens` with a fake proxy: after the channels, one more call carries the file's `tokens`,
// `users` and `options` tables (docs/relay.md, "Keys"); the keys go to the proxy only, never to the terminal.

const ADMIN_KEY = 'admin-key-that-must-never-be-printed-0123456789';
const TOKENS = {
  read: 6,
  created: 5,
  updated: 0,
  unchanged: 0,
  edited: 0,
  skipped: 1,
  items: [],
  options: { imported: [], ignored: [] },
};

const report = (tokens?: ImportReport['tokens']): ImportReport => importReport(22, tokens ? { tokens } : {});

const dir = useTempDir('import-sqlite-tokens-');
let file: string;
beforeAll(async () => {
  file = join(dir(), 'one-api.db');
  await writeOneApiTokensFile(file);
});

async function run(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const bodies: {
    rows: unknown[];
    dryRun?: boolean;
    tokens?: Record<string, { columns: string[]; rows: unknown[][] }>;
  }[] = [];
  const code = await runImportSqliteCli(args, {
    stdout: (line) => out.push(line),
    stderr: (line) => err.push(line),
    env: { ADMIN_KEY },
    sleep: async () => {},
    fetch: async (_url, init) => {
      const body = JSON.parse(String(init?.body));
      bodies.push(body);
      return Response.json({
        success: true,
        data: { ...report(body.tokens ? TOKENS : undefined), dryRun: body.dryRun === true },
      });
    },
  });
  return { code, stdout: out.join('\n'), stderr: err.join('\n'), bodies };
}

describe('npm run import:sqlite -- --tokens (with a fake proxy)', () => {
  it("sends the tokens, users and options tables in one more call and prints the keys' counts, never a key", async () => {
    const result = await run([file, '--url', 'http://proxy.test', '--tokens', '--dry-run']);

    expect(result.code).toBe(0);
    expect(result.bodies).toHaveLength(2);
    const [, tokensCall] = result.bodies;
    expect(tokensCall?.rows).toEqual([]);
    expect(tokensCall?.dryRun).toBe(true);
    expect(tokensCall?.tokens?.tokens?.rows).toHaveLength(6);
    expect(tokensCall?.tokens?.tokens?.columns).toContain('key');
    expect(tokensCall?.tokens?.users?.rows).toHaveLength(2);
    expect(tokensCall?.tokens?.options?.rows).toHaveLength(5);
    expect(JSON.parse(result.stdout).tokens).toEqual(TOKENS);
    expect(result.stderr).toContain('Keys of 6 tokens that would be created: 5');
    for (let n = 1; n <= 5; n += 1) expect(`${result.stdout}${result.stderr}`).not.toContain(legacyKey(n));
  });

  it('sends no token table without --tokens', async () => {
    const result = await run([file, '--url', 'http://proxy.test']);

    expect(result.bodies).toHaveLength(1);
    expect(result.bodies[0]?.tokens).toBeUndefined();
  });
});
