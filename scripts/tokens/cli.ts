import { randomBytes, randomUUID } from 'node:crypto';
import { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import * as z from 'zod';
import { expiresAtSchema, FRESH_READ_INTERVAL_MS, identifierSchema } from '#shared/access-tokens';
import { newAccessTokenValue } from '#shared/local-credentials';
import { parsedOrUsage, parseStrict, UsageError, validOption } from './args.ts';
import { type DeployedApis, findDeployedApis, flushAuthorizerCaches } from './authorizer-cache.ts';
import { RELAY_USAGE, type RelayCliDeps, runRelayCli } from './relay.ts';
import { localTokenStore, type NewAccessToken, secretTokenStore, type TokenStore } from './stores.ts';

export const USAGE = `Usage:
  npm run tokens -- create --team <teamId> [--member <tmbId>] [--label <text>] [--expires <ISO 8601>] [--secret-id <id or ARN>]
  npm run tokens -- revoke --id <id> [--secret-id <id or ARN> [--stack <stack name>] [--no-wait]]
  npm run tokens -- list [--secret-id <id or ARN>]
${RELAY_USAGE}

Without --secret-id the tool works on the local run's \${DATA_DIR:-.data}/credentials.json (used at once).
With --secret-id it works on the access tokens secret in AWS Secrets Manager (hashes only).
create prints the new token once; its last output line is JSON {"token","id","teamId","tmbId"}.
revoke with --secret-id then flushes both APIs' authorizer caches (API ids from the outputs of the
stack that made the secret, or --stack), waits out the authorizers' secrets cache and flushes again,
so no request is allowed with the token once it returns; --no-wait skips the wait.`;

/** The relay commands' dependencies (scripts/tokens/relay.ts), and those of the access-token commands. */
export interface CliDeps extends RelayCliDeps {
  /** Makes the clients `revoke` uses to find and flush the APIs' authorizer caches. */
  cloudFormationClient?: (region: string | undefined) => CloudFormationClient;
  apiGatewayClient?: (region: string | undefined) => APIGatewayClient;
  sleep?: (ms: number) => Promise<void>;
}

type Command =
  | { name: 'help' }
  | { name: 'create'; secretId?: string; teamId: string; tmbId?: string; label: string; expiresAt: string | null }
  | { name: 'revoke'; secretId?: string; id: string; stack?: string; wait: boolean }
  | { name: 'list'; secretId?: string };

// A secret name is at most 512 characters; its ARN adds a prefix and a random suffix.
const secretIdSchema = z.string().trim().min(1, 'is required').max(2048, 'is too long');

// CloudFormation stack names: letters, digits and dashes, starting with a letter, at most 128 characters.
const stackNameSchema = z.string().regex(/^[A-Za-z][A-Za-z0-9-]{0,127}$/, 'must be a CloudFormation stack name');

const OPTIONS = {
  team: { type: 'string' },
  member: { type: 'string' },
  label: { type: 'string' },
  expires: { type: 'string' },
  id: { type: 'string' },
  'secret-id': { type: 'string' },
  stack: { type: 'string' },
  'no-wait': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const ALLOWED: Record<Exclude<Command['name'], 'help'>, readonly (keyof typeof OPTIONS)[]> = {
  create: ['team', 'member', 'label', 'expires', 'secret-id'],
  revoke: ['id', 'secret-id', 'stack', 'no-wait'],
  list: ['secret-id'],
};

function parseCommand(argv: string[], now: Date): Command {
  const { values, positionals } = parseStrict(argv, OPTIONS);
  if (values.help) return { name: 'help' };
  const [name, ...extra] = positionals;
  if (name !== 'create' && name !== 'revoke' && name !== 'list') {
    throw new UsageError(name === undefined ? 'a command is required' : `unknown command "${name}"`);
  }
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`);
  for (const option of Object.keys(values) as (keyof typeof OPTIONS)[]) {
    if (!ALLOWED[name].includes(option)) throw new UsageError(`--${option} does not apply to ${name}`);
  }
  const secretId =
    values['secret-id'] === undefined ? undefined : validOption(secretIdSchema, 'secret-id', values['secret-id']);

  switch (name) {
    case 'create': {
      if (values.team === undefined) throw new UsageError('--team is required');
      const expires = values.expires === undefined ? null : validOption(expiresAtSchema, 'expires', values.expires);
      if (expires !== null && !(Date.parse(expires) > now.getTime()))
        throw new UsageError('--expires must be in the future');
      return {
        name,
        secretId,
        teamId: validOption(identifierSchema, 'team', values.team),
        tmbId: values.member === undefined ? undefined : validOption(identifierSchema, 'member', values.member),
        label:
          values.label === undefined
            ? ''
            : validOption(z.string().max(200, 'must be at most 200 characters'), 'label', values.label),
        expiresAt: expires === null ? null : new Date(expires).toISOString(),
      };
    }
    case 'revoke':
      if (values.id === undefined) throw new UsageError('--id is required');
      if (secretId === undefined && (values.stack !== undefined || values['no-wait'] !== undefined)) {
        throw new UsageError('--stack and --no-wait apply only with --secret-id (the local run has no caches)');
      }
      return {
        name,
        secretId,
        id: validOption(identifierSchema, 'id', values.id),
        ...(values.stack === undefined ? {} : { stack: validOption(stackNameSchema, 'stack', values.stack) }),
        wait: values['no-wait'] !== true,
      };
    case 'list':
      return { name, secretId };
  }
}

/** Makes a new access token for a team member and stores it; returns it with its plaintext value. */
export async function createToken(
  store: TokenStore,
  input: { teamId: string; tmbId?: string; label?: string; expiresAt?: string | null },
): Promise<NewAccessToken> {
  const token: NewAccessToken = {
    id: randomUUID(),
    token: newAccessTokenValue(),
    teamId: input.teamId,
    // A FastGPT member id is an ObjectId-shaped 24-hex string; a fresh one stands for a new member.
    tmbId: input.tmbId ?? randomBytes(12).toString('hex'),
    label: input.label ?? '',
    expiresAt: input.expiresAt ?? null,
  };
  await store.add(token);
  return token;
}

const defaultSecretsClient = (region: string | undefined) => new SecretsManagerClient(region ? { region } : {});
const defaultCloudFormationClient = (region: string | undefined) => new CloudFormationClient(region ? { region } : {});
const defaultApiGatewayClient = (region: string | undefined) => new APIGatewayClient(region ? { region } : {});
/** How long a new token stays unshown after the secret holds it: twice the authorizer's fresh-read interval. */
export const NEW_TOKEN_HOLD_MS = 2 * FRESH_READ_INTERVAL_MS;

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const regionOfArn = (secretId: string) => /^arn:[^:]+:secretsmanager:([^:]+):/.exec(secretId)?.[1];

// Both stores' readers throw CredentialFormatError for a malformed file or secret: it names the
// location and the broken rules, never the plaintext tokens a parser's own message would quote.
function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** What `revoke` needs in Secrets Manager mode to make the revocation take effect everywhere. */
interface AwsContext {
  readonly secrets: SecretsManagerClient;
  readonly region: string | undefined;
}

/**
 * After the secret no longer holds the token: drop API Gateway's cached decisions at once, wait
 * until every authorizer instance's cached copy of the secret has expired (an instance may still
 * allow the token until then, and API Gateway would cache that Allow), then drop them again.
 */
async function takeRevocationEverywhere(
  command: Extract<Command, { name: 'revoke' }>,
  secretId: string,
  aws: AwsContext,
  deps: CliDeps,
): Promise<number> {
  const cloudFormation = (deps.cloudFormationClient ?? defaultCloudFormationClient)(aws.region);
  const apiGateway = (deps.apiGatewayClient ?? defaultApiGatewayClient)(aws.region);
  let apis: DeployedApis | undefined;
  try {
    apis = await findDeployedApis({ secrets: aws.secrets, cloudFormation }, secretId, command.stack);
    deps.stdout(`Flushing the authorizer caches of APIs ${apis.restApiIds.join(', ')} (stage ${apis.stageName}).`);
    await flushAuthorizerCaches(apiGateway, apis);
    if (command.wait) {
      const seconds = apis.secretsMaxAgeSeconds + 1;
      deps.stdout(
        `Waiting ${seconds} s for the authorizers' cached copies of the secret to expire (--no-wait skips this)...`,
      );
      await (deps.sleep ?? defaultSleep)(seconds * 1000);
      await flushAuthorizerCaches(apiGateway, apis);
      deps.stdout('Revoked: no request is allowed with this token any more.');
    } else {
      deps.stdout(
        `Revoked. An authorizer instance may still allow it for up to ${apis.secretsMaxAgeSeconds} s (its secrets cache) plus the authorizer TTL.`,
      );
    }
  } catch (error) {
    deps.stderr(
      `tokens: the token is revoked in ${secretId}, but the authorizer caches were not flushed: ${describeAwsError(error)}`,
    );
    deps.stderr(
      'It stops working once cached copies expire (SECRETS_MAX_AGE_S + the authorizer TTL; 120 s by default).',
    );
    return 1;
  } finally {
    cloudFormation.destroy();
    apiGateway.destroy();
  }
  deps.stdout(JSON.stringify({ id: command.id, revoked: true, flushed: apis.restApiIds }));
  return 0;
}

const describeAwsError = (error: unknown): string => (error instanceof Error ? error.message : String(error));

async function execute(
  command: Exclude<Command, { name: 'help' }>,
  store: TokenStore,
  aws: AwsContext | undefined,
  deps: CliDeps,
): Promise<number> {
  switch (command.name) {
    case 'create': {
      const created = await createToken(store, command);
      deps.stdout(`Created access token ${created.id} for team ${created.teamId}, member ${created.tmbId}.`);
      deps.stdout(`Stored in ${store.location}; expires ${created.expiresAt ?? 'never'}.`);
      if (aws) {
        // Shown only once the secret has held it for longer than the authorizers' fresh-read interval: by its
        // first use, any instance that has not seen it may read the secret again (docs/authorization.md).
        await (deps.sleep ?? defaultSleep)(NEW_TOKEN_HOLD_MS);
      }
      deps.stdout('The token is shown only this once: keep it now.');
      const { token, id, teamId, tmbId } = created;
      deps.stdout(JSON.stringify({ token, id, teamId, tmbId }));
      return 0;
    }
    case 'revoke': {
      if (!(await store.remove(command.id))) {
        deps.stderr(`tokens: no access token with id ${command.id} in ${store.location}`);
        return 1;
      }
      if (aws && command.secretId) return takeRevocationEverywhere(command, command.secretId, aws, deps);
      deps.stdout(JSON.stringify({ id: command.id, revoked: true }));
      return 0;
    }
    case 'list':
      for (const entry of await store.list()) deps.stdout(JSON.stringify(entry));
      return 0;
  }
}

/** Runs `npm run tokens -- <argv>`; returns the exit code (0 ok, 1 failed, 2 bad arguments). */
export async function runTokensCli(argv: string[], deps: CliDeps): Promise<number> {
  if (argv[0] === 'relay') {
    return runRelayCli(argv.slice(1), { ...deps, secretsClient: deps.secretsClient ?? defaultSecretsClient }, USAGE);
  }
  const parsed = parsedOrUsage(() => parseCommand(argv, deps.now?.() ?? new Date()), deps, USAGE);
  if (!parsed.ok) return parsed.exitCode;
  const command = parsed.value;
  if (command.name === 'help') {
    deps.stdout(USAGE);
    return 0;
  }

  let client: SecretsManagerClient | undefined;
  let store: TokenStore;
  const region = command.secretId ? regionOfArn(command.secretId) : undefined;
  if (command.secretId) {
    client = (deps.secretsClient ?? defaultSecretsClient)(region);
    store = secretTokenStore(client, command.secretId, { sleep: deps.sleep });
  } else {
    store = localTokenStore(deps.env.DATA_DIR || '.data', (file) =>
      deps.stderr(`Created ${file} (mode 0600) with a new admin key and a default access token.`),
    );
  }
  try {
    return await execute(command, store, client ? { secrets: client, region } : undefined, deps);
  } catch (error) {
    deps.stderr(`tokens: ${describeError(error)}`);
    return 1;
  } finally {
    client?.destroy();
  }
}
