import { Hash } from '@smithy/core/serde';
import type { RelayChannel } from '../contract.ts';

/*
 * AWS credentials of a Bedrock channel and the SigV4 signature of one request (docs/relay.md, "Providers"). The key is
 * the product's `ak|sk|region` (the import's form, New API's key and One API's config.ak/sk/region); a channel with no
 * key (empty, or `||region`: no access key, no secret) signs with the function's own role, read as the AWS SDK reads it in Lambda (AWS_ACCESS_KEY_ID,
 * AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN of the execution environment). Signing is @smithy/signature-v4, the SDK's
 * own signer, with service `bedrock` (the signing name of Bedrock Runtime). Nothing here ever puts a secret in an error.
 * The signer is loaded on the first Bedrock request, so the relay's cold start does not pay for it.
 */

export const BEDROCK_SIGNING_SERVICE = 'bedrock';
const DEFAULT_REGION = 'us-east-1';

export interface AwsCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
}

export interface BedrockAccess {
  readonly region: string;
  /** undefined = the function's own role (read at signing time). */
  readonly credentials?: AwsCredentials;
}

const REGION = /^[a-z]{2}(?:-[a-z]+)+-\d{1,2}$/;

/** A channel's region and credentials; an error naming what is wrong, never the key's text. */
export function bedrockAccess(channel: RelayChannel, env: NodeJS.ProcessEnv = process.env): BedrockAccess {
  const key = channel.key.trim();
  const fallbackRegion = channel.settings.region || env.AWS_REGION || env.AWS_DEFAULT_REGION || DEFAULT_REGION;
  if (key === '') return { region: checkedRegion(fallbackRegion) };
  const parts = key.split('|').map((part) => part.trim());
  if (parts.length !== 3) throw new Error('the channel key is not AWS credentials in the form ak|sk|region');
  const [accessKeyId, secretAccessKey, region] = parts as [string, string, string];
  // `||region`: the key's form with no access key and no secret, how an operator names the role (a key is never empty
  // after an edit or an import).
  if (accessKeyId === '' && secretAccessKey === '') return { region: checkedRegion(region || fallbackRegion) };
  if (accessKeyId === '' || secretAccessKey === '') {
    throw new Error('the channel key is not AWS credentials in the form ak|sk|region');
  }
  return { region: checkedRegion(region || fallbackRegion), credentials: { accessKeyId, secretAccessKey } };
}

function checkedRegion(region: string): string {
  // The region becomes a host name (bedrock-runtime.{region}.amazonaws.com): never anything else.
  if (!REGION.test(region)) throw new Error('the channel names no valid AWS region');
  return region;
}

/** The execution environment's credentials (the function's role), as the SDK's environment provider reads them. */
export function roleCredentials(env: NodeJS.ProcessEnv = process.env): AwsCredentials {
  const accessKeyId = env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY;
  if (!accessKeyId || !secretAccessKey) {
    throw new Error('the channel names no AWS key and this environment has no AWS credentials of its own');
  }
  return { accessKeyId, secretAccessKey, ...(env.AWS_SESSION_TOKEN ? { sessionToken: env.AWS_SESSION_TOKEN } : {}) };
}

export interface SignInput {
  readonly url: string;
  readonly method?: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly region: string;
  readonly credentials: AwsCredentials;
  readonly date?: Date;
}

/**
 * The headers SigV4 adds to a request (`authorization`, `x-amz-date`, `x-amz-content-sha256`, `x-amz-security-token`
 * for a role's temporary credentials), signed over the URL, the given headers (host included) and the body, as the SDK signs its own calls.
 */
export async function signBedrockRequest(input: SignInput): Promise<Record<string, string>> {
  const url = new URL(input.url);
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams) query[name] = value;
  const headers: Record<string, string> = { ...input.headers, host: url.host };
  const { SignatureV4 } = await import('@smithy/signature-v4');
  const signer = new SignatureV4({
    service: BEDROCK_SIGNING_SERVICE,
    region: input.region,
    credentials: input.credentials,
    sha256: Hash.bind(null, 'sha256'),
  });
  const signed = await signer.sign(
    {
      method: input.method ?? 'POST',
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port ? { port: Number(url.port) } : {}),
      path: url.pathname,
      query,
      headers,
      body: input.body,
    },
    input.date ? { signingDate: input.date } : {},
  );
  const added: Record<string, string> = {};
  for (const [name, value] of Object.entries(signed.headers)) {
    if (!Object.hasOwn(headers, name)) added[name.toLowerCase()] = value;
  }
  return added;
}
