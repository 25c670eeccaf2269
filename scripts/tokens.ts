// `npm run tokens -- <command>`: create, revoke or list access tokens (docs/authorization.md). Logic: ./tokens/cli.ts.
import { runTokensCli } from './tokens/cli.ts';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

process.exitCode = await runTokensCli(process.argv.slice(2), {
  stdout: (line) => process.stdout.write(`${line}\n`),
  stderr: (line) => process.stderr.write(`${line}\n`),
  env: process.env,
});
