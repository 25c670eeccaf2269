// `eval "$(npm run -s dynamodb-env)"`: the running local engine's endpoint and this run's credential as shell
// variables, for the AWS CLI, an SDK, `npm run backfill-parent-keys` or `sam local` (docs/local-run.md).
// Reads ${DATA_DIR:-.data}/dynamodb-credentials.json, which npm start writes (mode 0600) at every start.
import { join } from 'node:path';
import { ENGINE_CREDENTIALS_FILE, readEngineCredentialsFile } from '#infra/local/dynamo-engine';

const shellQuote = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`;

try {
  const engine = await readEngineCredentialsFile(join(process.env.DATA_DIR || '.data', ENGINE_CREDENTIALS_FILE));
  const variables = {
    AWS_ENDPOINT_URL_DYNAMODB: engine.endpoint,
    AWS_REGION: engine.region,
    AWS_ACCESS_KEY_ID: engine.accessKeyId,
    AWS_SECRET_ACCESS_KEY: engine.secretAccessKey,
  };
  for (const [name, value] of Object.entries(variables)) process.stdout.write(`export ${name}=${shellQuote(value)}\n`);
  // A session token from the shell would be sent along and make the signature another credential's.
  process.stdout.write('unset AWS_SESSION_TOKEN AWS_PROFILE\n');
} catch (error) {
  process.stderr.write(`dynamodb-env: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
