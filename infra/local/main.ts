/**
 * `npm start`: the whole product on one machine (docs/local-run.md). Environment: HOST, PORT, DYNAMODB_HOST,
 * DYNAMODB_PORT, DATA_DIR, optional DYNAMODB_ENDPOINT (another engine instead of the embedded one, see
 * docs/dynamodb-engines.md), THROTTLE_RATE_LIMIT / THROTTLE_BURST_LIMIT, RELAY_RETEST_INTERVAL_SECONDS (the re-test
 * of auto-disabled channels; default 600, 0 = off), MODEL_CATALOG, LOG_LEVEL.
 */
import { resolve } from 'node:path';
import * as z from 'zod';
import { DEFAULTS, loadConfig } from '#shared/config';
import { type LocalBackend, startLocalBackend } from './backend.ts';
import { dynamoEndpointSchema } from './dynamo-engine.ts';
import { credentialsPrinted, credentialsUnprinted } from './first-run.ts';
import { startGateway } from './gateway.ts';

const port = (fallback: number) => z.coerce.number().int().min(0).max(65_535).default(fallback);
const envSchema = z
  .object({
    HOST: z.string().trim().min(1).default('127.0.0.1'),
    PORT: port(3000),
    // Its own variable: opening the APIs (HOST=0.0.0.0) never opens the engine to the network too.
    DYNAMODB_HOST: z.string().trim().min(1).default('127.0.0.1'),
    DYNAMODB_PORT: port(8000),
    DYNAMODB_ENDPOINT: dynamoEndpointSchema,
    DATA_DIR: z.string().trim().min(1).default('.data'),
    THROTTLE_RATE_LIMIT: z.coerce.number().positive().optional(),
    THROTTLE_BURST_LIMIT: z.coerce.number().int().positive().optional(),
    // The re-test of auto-disabled channels, as the deployed schedule runs it (docs/relay.md, "Re-test"); 0 = off.
    RELAY_RETEST_INTERVAL_SECONDS: z.coerce
      .number()
      .int()
      .min(0)
      .default(DEFAULTS.relayRetestIntervalMinutes * 60),
  })
  .refine((e) => (e.THROTTLE_RATE_LIMIT === undefined) === (e.THROTTLE_BURST_LIMIT === undefined), {
    message: 'set both THROTTLE_RATE_LIMIT and THROTTLE_BURST_LIMIT, or neither',
    path: ['THROTTLE_RATE_LIMIT'],
  });

async function main(): Promise<void> {
  const env = loadConfig(envSchema);
  const dataDir = resolve(env.DATA_DIR);
  const backend = await startLocalBackend({
    dataDir,
    dynamoEndpoint: env.DYNAMODB_ENDPOINT,
    dynamoHost: env.DYNAMODB_HOST,
    dynamoPort: env.DYNAMODB_PORT,
  });
  const gateway = await startGateway(backend, {
    host: env.HOST,
    port: env.PORT,
    throttle:
      env.THROTTLE_RATE_LIMIT !== undefined && env.THROTTLE_BURST_LIMIT !== undefined
        ? { rateLimit: env.THROTTLE_RATE_LIMIT, burstLimit: env.THROTTLE_BURST_LIMIT }
        : undefined,
    accessLog: (line) => process.stdout.write(`${line}\n`),
  });

  if (backend.createdCredentials || credentialsUnprinted(backend.credentialsFile)) {
    // Printed once, by the first start that gets this far (first-run.ts); afterwards they live only in the 0600 file.
    const [token] = backend.credentials.accessTokens;
    process.stdout.write(
      [
        `Created local credentials in ${backend.credentialsFile} (mode 0600); they are not printed again.`,
        // Lines a user can paste into a shell as they are: `export` so the values reach `npm run` too.
        `  export ADMIN_KEY=${backend.credentials.adminKey}`,
        token ? `  export TOKEN=${token.token}   # access token of team ${token.teamId}, member ${token.tmbId}` : '',
        '',
      ].join('\n'),
    );
  } else {
    process.stdout.write(`Using local credentials in ${backend.credentialsFile}\n`);
  }
  process.stdout.write(
    backend.embeddedEngine
      ? `DynamoDB engine: embedded dynalite on ${backend.dynamoEndpoint} (data in ${dataDir}); ` +
          `its credential for this run is in ${backend.dynamoCredentialsFile} (eval "$(npm run -s dynamodb-env)")\n`
      : `DynamoDB engine: external, DYNAMODB_ENDPOINT=${backend.dynamoEndpoint} (embedded dynalite not started)\n`,
  );
  process.stdout.write(`listening on ${gateway.url}\n`);
  credentialsPrinted(backend.credentialsFile);
  const retest = startRetestTimer(backend, env.RELAY_RETEST_INTERVAL_SECONDS * 1000);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`${signal}: shutting down\n`);
    retest.stop();
    Promise.all([gateway.close(), backend.close()]).then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

/** Runs the re-test every `intervalMs` (never two at once); 0 = never. Its own logger reports each run. */
function startRetestTimer(backend: LocalBackend, intervalMs: number): { stop(): void } {
  if (intervalMs <= 0 || backend.retestChannels === undefined) return { stop: () => {} };
  const run = backend.retestChannels;
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    run()
      .catch((error: unknown) => {
        process.stderr.write(
          `re-test of auto-disabled channels failed: ${error instanceof Error ? error.name : 'error'}\n`,
        );
      })
      .finally(() => {
        running = false;
      });
  }, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

main().catch((error: unknown) => {
  process.stderr.write(`npm start failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
