// `npm run import:sqlite -- <file.db> --url <proxy_url> [--dry-run]`: imports the channels of a One API / New API
// SQLite file through a running proxy (docs/channel-import.md, "SQLite files"). Logic: ./import-sqlite/cli.ts.
import { runImportSqliteCli } from './import-sqlite/cli.ts';

process.exitCode = await runImportSqliteCli(process.argv.slice(2), {
  stdout: (line) => process.stdout.write(`${line}\n`),
  stderr: (line) => process.stderr.write(`${line}\n`),
  env: process.env,
});
