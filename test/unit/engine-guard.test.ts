import { Sha256 } from '@smithy/core/checksum';
import { SignatureV4 } from '@smithy/signature-v4';
import { describe, expect, it } from 'vitest';
import { checkSignature, type EngineCredentials } from '#infra/local/engine-guard';

const credentials: EngineCredentials = { accessKeyId: 'engine-run-key', secretAccessKey: 'engine-run-secret' };
const NOW = Date.UTC(2026, 10, 27, 12, 0, 0);

/** A DynamoDB request signed with the engine's credential; `unsigned` names headers left out of the signature. */
async function signed(target: string, body: string, unsigned: string[] = []) {
  const signer = new SignatureV4({ credentials, region: 'us-east-1', service: 'dynamodb', sha256: Sha256 });
  const request = await signer.sign(
    {
      method: 'POST',
      protocol: 'http:',
      hostname: '127.0.0.1',
      path: '/',
      query: {},
      headers: {
        host: '127.0.0.1:8000',
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': `DynamoDB_20120810.${target}`,
      },
      body,
    },
    { signingDate: new Date(NOW), unsignableHeaders: new Set(unsigned) },
  );
  const headers = Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k.toLowerCase(), v]));
  return { method: 'POST', url: '/', headers, body: Buffer.from(body) };
}

describe('the local engine signature check', () => {
  it('accepts a request whose signature covers host, date and X-Amz-Target', async () => {
    const request = await signed('GetItem', '{"TableName":"datasets"}');

    expect(await checkSignature(request, credentials, NOW)).toBeUndefined();
  });

  it('refuses a signature that leaves X-Amz-Target out, so a signed read cannot be replayed as DeleteTable', async () => {
    const request = await signed('DescribeTable', '{"TableName":"datasets"}', ['x-amz-target']);
    const replayed = { ...request, headers: { ...request.headers, 'x-amz-target': 'DynamoDB_20120810.DeleteTable' } };

    expect(request.headers.authorization).not.toContain('x-amz-target');
    expect(await checkSignature(request, credentials, NOW)).toMatchObject({ type: 'InvalidSignatureException' });
    expect(await checkSignature(replayed, credentials, NOW)).toMatchObject({ type: 'InvalidSignatureException' });
  });

  it('refuses a request whose X-Amz-Target was changed after signing', async () => {
    const request = await signed('DescribeTable', '{"TableName":"datasets"}');
    const changed = { ...request, headers: { ...request.headers, 'x-amz-target': 'DynamoDB_20120810.DeleteTable' } };

    expect(await checkSignature(changed, credentials, NOW)).toMatchObject({ type: 'InvalidSignatureException' });
  });
});
