import { Sha256 } from '@smithy/core/checksum';
import { SignatureV4 } from '@smithy/signature-v4';
import type { EngineAccess } from '#infra/local/dynamo-engine';

/**
 * The headers of a request to the DynamoDB engine at `url` (its host added), signed with `access`'s credential the
 * way any AWS SDK signs them.
 */
export async function signedEngineHeaders(
  access: EngineAccess,
  request: { method: string; url: URL; headers: Readonly<Record<string, string>>; body: string | Buffer },
): Promise<Record<string, string>> {
  const signer = new SignatureV4({
    credentials: access.credentials,
    region: 'us-east-1',
    service: 'dynamodb',
    sha256: Sha256,
  });
  const signed = await signer.sign({
    method: request.method,
    protocol: request.url.protocol,
    hostname: request.url.hostname,
    port: Number(request.url.port),
    path: request.url.pathname,
    query: {},
    headers: { host: request.url.host, ...request.headers },
    body: request.body,
  });
  return signed.headers;
}
