import { resolve } from 'node:path';
import { Architecture } from 'aws-cdk-lib/aws-lambda';
import type { Node } from 'constructs';
import { ConfigError } from '#shared/errors';

/**
 * A template for `sam local` (`npm run synth:sam`, i.e. `cdk synth -c sam=true`). SAM only lets
 * `--env-vars` override variables the template declares, so this mode declares the local ones
 * (DynamoDB endpoint, the authorizer's credentials file) with values that work against `npm start`,
 * bundles the authorizer's local entry (SAM_AUTHORIZER_ENTRY) with the local credentials file copied
 * beside it, and builds for the host's
 * architecture unless told otherwise. Never deploy a template made this way.
 */
export const SAM_CONTEXT = { sam: 'sam', architecture: 'samArchitecture' } as const;

/** The authorizer's entry in this mode: the local credentials file instead of Secrets Manager. */
export const SAM_AUTHORIZER_ENTRY = 'functions/authorizer/local-handler.ts';

/** The DynamoDB engine of `DYNAMODB_HOST=0.0.0.0 npm start`, seen from a SAM container (signed with this run's credential). */
export const SAM_DYNAMODB_ENDPOINT = 'http://host.docker.internal:8000';
/** Where the authorizer finds the copied credentials file: SAM mounts the bundle at /var/task. */
export const SAM_CREDENTIALS_PATH = '/var/task/credentials.json';

export interface SamMode {
  readonly architecture: Architecture;
  /** The local run's credentials file, copied beside the authorizer's bundle. */
  readonly credentialsFile: string;
}

/** SAM mode from the context (`-c sam=true [-c samArchitecture=x86_64|arm64]`), or undefined. */
export function loadSamMode(
  node: Node,
  env: NodeJS.ProcessEnv = process.env,
  hostArch = process.arch,
): SamMode | undefined {
  const flag: unknown = node.tryGetContext(SAM_CONTEXT.sam);
  if (flag === undefined || flag === false || flag === 'false') return undefined;
  if (flag !== true && flag !== 'true') throw new ConfigError('Context "sam" must be true or false');
  const requested: unknown = node.tryGetContext(SAM_CONTEXT.architecture);
  let architecture: Architecture;
  if (requested === undefined) {
    // Docker runs the host's architecture natively; arm64 on an x86 host would need QEMU emulation.
    architecture = hostArch === 'arm64' ? Architecture.ARM_64 : Architecture.X86_64;
  } else if (requested === 'arm64' || requested === 'x86_64') {
    architecture = requested === 'arm64' ? Architecture.ARM_64 : Architecture.X86_64;
  } else {
    throw new ConfigError('Context "samArchitecture" must be arm64 or x86_64');
  }
  return { architecture, credentialsFile: resolve(env.DATA_DIR || '.data', 'credentials.json') };
}

const shellQuote = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`;

/**
 * The bundling step that copies the credentials file beside the authorizer's bundle (mode kept:
 * 0600). CDK builds this command even when it skips bundling, so a missing file fails the command
 * (with a message saying what to do), not the construction.
 */
export function copyCredentialsBesideBundle(credentialsFile: string): (outputDir: string) => string[] {
  return (outputDir) => {
    const missing = `SAM mode copies ${credentialsFile} beside the authorizer bundle and it does not exist: run npm start once (it creates it) or set DATA_DIR`;
    return [
      `test -f ${shellQuote(credentialsFile)} || { echo ${shellQuote(missing)} >&2; exit 1; }`,
      `cp -p ${shellQuote(credentialsFile)} ${shellQuote(resolve(outputDir, 'credentials.json'))}`,
    ];
  };
}
