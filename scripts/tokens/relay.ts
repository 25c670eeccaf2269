import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { ENGINE_CREDENTIALS_FILE, localDynamoClient, readEngineCredentialsFile } from '#infra/local/dynamo-engine';
import { loadOrCreateLocalCredentials } from '#shared/local-credentials';
import {
  newRelayKey,
  newRelayKeyId,
  type RelayKeyRecord,
  relayKeyHash,
  relayKeyLabel,
  relayKeyLimitsSchema,
} from '#shared/relay-keys';
import { RelayKeysRepository } from '#shared/repositories/relay-keys';
import { TABLES } from '#shared/tables';
import { parsedOrUsage, parseStrict, UsageError, validOption } from './args.ts';

/*
 * `npm run tokens -- relay <create|list|revoke>`: relay keys (docs/authorization.md, "Relay keys"). Locally
 * they go to the running local engine (`npm start`, found through DATA_DIR/dynamodb-credentials.json, or
 * AWS_ENDPOINT_URL_DYNAMODB with the shell's credentials), hashed under the local run's channel-id key; with
 * `--secret-id` (the channel-id key secret) and `--table` (the deployed relayKeys table) they go to AWS.
 */

export const RELAY_USAGE = `  npm run tokens -- relay create --name <name> [--group <group>]... [--models <model>]... [--ips <IP or CIDR>]... [--expires <ISO 8601>] [--table <name> --secret-id <id or ARN>]
  npm run tokens -- relay list [--table <name>]
  npm run tokens -- relay revoke --id <id> [--table <name>]

relay create prints the new key once; its last output line is JSON {"key","id","name"}. Groups are ordered (default:
default); --group, --models and --ips repeat or take comma-separated lists. relay revoke disables the key (its record
stays, named by id in usage records); it stops working within SECRETS_MAX_AGE_S + the authorizer TTL (120 s by
default) when deployed, at once locally. Without --secret-id the local run's engine and channel-id key are used (start
npm start first); the table is ${TABLES.relayKeys.logicalName} unless --table names another. With --secret-id (the
stack's channel-id key secret) --table (the stack's relay keys table) is required.`;

/** What the relay commands need from their caller (the tokens tool's own dependencies, scripts/tokens/cli.ts). */
export interface RelayCliDeps {
  stdout(line: string): void;
  stderr(line: string): void;
  env: NodeJS.ProcessEnv;
  /** Makes the Secrets Manager client for --secret-id (region taken from an ARN when given). */
  secretsClient?: (region: string | undefined) => SecretsManagerClient;
  /** The DynamoDB client for AWS mode (--secret-id); region from the secret's ARN when it has one. */
  dynamoClient?: (region: string | undefined) => DynamoDBClient;
  now?: () => Date;
}

const OPTIONS = {
  name: { type: 'string' },
  group: { type: 'string', multiple: true },
  models: { type: 'string', multiple: true },
  ips: { type: 'string', multiple: true },
  expires: { type: 'string' },
  id: { type: 'string' },
  table: { type: 'string' },
  'secret-id': { type: 'string' },
} as const;
type Option = keyof typeof OPTIONS;

const ALLOWED: Readonly<Record<'create' | 'list' | 'revoke', readonly Option[]>> = {
  create: ['name', 'group', 'models', 'ips', 'expires', 'table', 'secret-id'],
  list: ['table', 'secret-id'],
  revoke: ['id', 'table', 'secret-id'],
};

// DynamoDB table names: 3..255 of letters, digits, `_`, `-` and `.`.
const tableSchema = z.string().regex(/^[A-Za-z0-9_.-]{3,255}$/, 'must be a DynamoDB table name');
const nameSchema = z.string().trim().min(1, 'is required').max(200, 'must be at most 200 characters');
const idSchema = z.string().regex(/^[0-9a-f]{24}$/, 'must be a key id (24 hex characters)');

/** Repeated options and comma-separated lists alike; undefined when the option was not given. */
const listOption = (values: string[] | undefined): string[] | undefined =>
  values === undefined
    ? undefined
    : values
        .flatMap((v) => v.split(','))
        .map((v) => v.trim())
        .filter((v) => v !== '');

type Command =
  | { name: 'create'; keyName: string; limits: z.infer<typeof relayKeyLimitsSchema> }
  | { name: 'list' }
  | { name: 'revoke'; id: string };

interface Target {
  readonly table?: string;
  readonly secretId?: string;
}

function parseCommand(argv: string[], now: Date): { command: Command; target: Target } {
  const { values, positionals } = parseStrict(argv, OPTIONS);
  const [name, ...extra] = positionals;
  if (name !== 'create' && name !== 'list' && name !== 'revoke') {
    throw new UsageError(name === undefined ? 'relay: a command is required' : `relay: unknown command "${name}"`);
  }
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`);
  for (const option of Object.keys(values) as Option[]) {
    if (!ALLOWED[name].includes(option)) throw new UsageError(`--${option} does not apply to relay ${name}`);
  }
  const target: Target = {
    ...(values.table === undefined ? {} : { table: validOption(tableSchema, 'table', values.table) }),
    ...(values['secret-id'] === undefined
      ? {}
      : { secretId: validOption(z.string().trim().min(1), 'secret-id', values['secret-id']) }),
  };
  if (target.secretId !== undefined && target.table === undefined) {
    throw new UsageError('--secret-id needs --table: the deployed relay keys table (the stack output)');
  }

  switch (name) {
    case 'create': {
      if (values.name === undefined) throw new UsageError('--name is required');
      const parsedLimits = z.safeParse(relayKeyLimitsSchema, {
        groups: listOption(values.group),
        models: listOption(values.models),
        ips: listOption(values.ips),
        expiresAt: values.expires,
      });
      if (!parsedLimits.success) {
        const issue = parsedLimits.error.issues[0];
        const option = { groups: 'group', models: 'models', ips: 'ips', expiresAt: 'expires' }[
          String(issue?.path[0]) as 'groups'
        ];
        throw new UsageError(`--${option ?? 'limits'} ${issue?.message ?? 'is invalid'}`);
      }
      const { expiresAt } = parsedLimits.data;
      if (expiresAt != null && !(Date.parse(expiresAt) > now.getTime())) {
        throw new UsageError('--expires must be in the future');
      }
      return {
        command: {
          name,
          keyName: validOption(nameSchema, 'name', values.name),
          limits: { ...parsedLimits.data, expiresAt: expiresAt == null ? null : new Date(expiresAt).toISOString() },
        },
        target,
      };
    }
    case 'list':
      return { command: { name }, target };
    case 'revoke':
      if (values.id === undefined) throw new UsageError('--id is required');
      return { command: { name, id: validOption(idSchema, 'id', values.id) }, target };
  }
}

const regionOfArn = (secretId: string) => /^arn:[^:]+:secretsmanager:([^:]+):/.exec(secretId)?.[1];

/** Where the keys are: the table's client and name, and (for create) the HMAC key. */
interface Store {
  readonly repository: RelayKeysRepository;
  readonly location: string;
  readonly hmacKey: () => Promise<Buffer>;
  close(): void;
}

async function localStore(target: Target, deps: RelayCliDeps): Promise<Store> {
  const dataDir = deps.env.DATA_DIR || '.data';
  const table = target.table ?? TABLES.relayKeys.logicalName;
  // An engine named by the shell (an external engine: DYNAMODB_ENDPOINT of npm start) wins over the embedded one's file.
  const client = deps.env.AWS_ENDPOINT_URL_DYNAMODB
    ? new DynamoDBClient({ endpoint: deps.env.AWS_ENDPOINT_URL_DYNAMODB })
    : localDynamoClient(await localEngine(dataDir));
  const credentialsFile = join(dataDir, 'credentials.json');
  return {
    repository: new RelayKeysRepository(DynamoDBDocumentClient.from(client), table),
    location: `table ${table} of the local engine`,
    hmacKey: async () => {
      const { credentials } = await loadOrCreateLocalCredentials(credentialsFile);
      if (!credentials.channelIdKey) throw new Error(`${credentialsFile} has no channel-id key: start npm start once`);
      return Buffer.from(credentials.channelIdKey, 'utf8');
    },
    close: () => client.destroy(),
  };
}

async function localEngine(dataDir: string) {
  const engine = await readEngineCredentialsFile(join(dataDir, ENGINE_CREDENTIALS_FILE));
  return {
    endpoint: engine.endpoint,
    credentials: { accessKeyId: engine.accessKeyId, secretAccessKey: engine.secretAccessKey },
  };
}

function awsStore(target: Required<Target>, deps: RelayCliDeps): Store {
  const region = regionOfArn(target.secretId);
  const client = (deps.dynamoClient ?? ((r) => new DynamoDBClient(r ? { region: r } : {})))(region);
  return {
    repository: new RelayKeysRepository(DynamoDBDocumentClient.from(client), target.table),
    location: `table ${target.table}`,
    hmacKey: async () => {
      const secrets = deps.secretsClient?.(region);
      if (!secrets) throw new Error('no Secrets Manager client');
      try {
        const { SecretString } = await secrets.send(new GetSecretValueCommand({ SecretId: target.secretId }));
        // Never quote the value.
        if (typeof SecretString !== 'string' || SecretString.length < 32) {
          throw new Error(`secret ${target.secretId} is not a channel-id key (a string of at least 32 characters)`);
        }
        return Buffer.from(SecretString, 'utf8');
      } finally {
        secrets.destroy();
      }
    },
    close: () => client.destroy(),
  };
}

/** What `relay list` shows of a key: never the key, its hash or any part of either. */
function summary(record: RelayKeyRecord) {
  const { keyHash: _keyHash, ...rest } = record;
  return { label: relayKeyLabel(record.id), ...rest };
}

async function execute(command: Command, store: Store, deps: RelayCliDeps, now: Date): Promise<number> {
  switch (command.name) {
    case 'create': {
      const key = newRelayKey();
      const record: RelayKeyRecord = {
        keyHash: relayKeyHash(await store.hmacKey(), key),
        id: newRelayKeyId(),
        name: command.keyName,
        groups: command.limits.groups,
        ...(command.limits.models ? { models: command.limits.models } : {}),
        ...(command.limits.ips ? { ips: command.limits.ips } : {}),
        ...(command.limits.expiresAt ? { expiresAt: command.limits.expiresAt } : {}),
        status: 'enabled',
        createdAt: now.toISOString(),
      };
      // A hash already stored would be a 285-bit collision: refused rather than overwritten.
      if (!(await store.repository.create(record))) throw new Error('a key with this hash exists; run the tool again');
      deps.stdout(`Created relay key ${record.id} (${command.keyName}) in ${store.location}.`);
      deps.stdout(`Groups ${record.groups.join(', ')}; expires ${record.expiresAt ?? 'never'}.`);
      deps.stdout('The key is shown only this once: keep it now.');
      deps.stdout(JSON.stringify({ key, id: record.id, name: record.name }));
      return 0;
    }
    case 'list':
      for (const record of await store.repository.list()) deps.stdout(JSON.stringify(summary(record)));
      return 0;
    case 'revoke': {
      const revoked = await store.repository.disable(command.id, 'revoked', now);
      if (!revoked) {
        deps.stderr(`tokens: no relay key with id ${command.id} in ${store.location}`);
        return 1;
      }
      deps.stdout(JSON.stringify({ id: command.id, revoked: true }));
      return 0;
    }
  }
}

/** Runs `npm run tokens -- relay <argv>`; returns the exit code (0 ok, 1 failed, 2 bad arguments). */
export async function runRelayCli(argv: string[], deps: RelayCliDeps, usage: string): Promise<number> {
  const now = deps.now?.() ?? new Date();
  const result = parsedOrUsage(() => parseCommand(argv, now), deps, usage);
  if (!result.ok) return result.exitCode;
  const parsed = result.value;
  let store: Store | undefined;
  try {
    const { table, secretId } = parsed.target;
    store =
      secretId !== undefined && table !== undefined
        ? awsStore({ table, secretId }, deps)
        : await localStore(parsed.target, deps);
    return await execute(parsed.command, store, deps, now);
  } catch (error) {
    deps.stderr(`tokens: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  } finally {
    store?.close();
  }
}
