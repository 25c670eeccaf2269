import { Readable } from 'node:stream';
import { BedrockRuntimeClient, ConverseCommand, ConverseStreamCommand } from '@aws-sdk/client-bedrock-runtime';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { bedrock } from '#shared/relay/providers/bedrock';
import {
  type AwsCredentials,
  bedrockAccess,
  roleCredentials,
  signBedrockRequest,
} from '#shared/relay/providers/bedrock-sign';
import { channel } from '#test/support/relay-fixtures';
import { verifySigV4 } from '#test/support/sigv4-verify';

// SigV4 as AWS signs it (docs/relay.md, "Providers"): the relay's signature of a request equals the one
// @aws-sdk/client-bedrock-runtime's own client puts on the same request, and both pass a verifier written from AWS's
// reference with node:crypto only (test/support/sigv4-verify.ts).

const STATIC: AwsCredentials = {
  accessKeyId: 'AKIAFAKEBEDROCK00001',
  secretAccessKey: 'fakeSecretKey/0123456789abcdefghijKLMNOP',
};
const ROLE: AwsCredentials = {
  accessKeyId: 'ASIAFAKEBEDROCKROLE01',
  secretAccessKey: 'roleSecret/abcdefghij0123456789ABCDEFGHIJ',
  sessionToken: 'IQoJb3JpZ2luX2VjEFakeSessionToken//////////wEaCXVzLWVhc3QtMSJHMEUCIQ==',
};
const SIGNED_AT = new Date('2026-11-27T12:34:56Z');

interface Captured {
  method: string;
  hostname: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** Sends one command through the SDK's client, captures the signed HTTP request it would send, answers canned JSON. */
async function sdkRequest(credentials: AwsCredentials, stream: boolean): Promise<Captured> {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(SIGNED_AT);
  let captured: Captured | undefined;
  const client = new BedrockRuntimeClient({
    region: 'us-west-2',
    credentials,
    maxAttempts: 1,
    requestHandler: {
      handle: async (request: Captured & { body: unknown }) => {
        const body = request.body as unknown;
        captured = {
          ...request,
          body: typeof body === 'string' ? body : Buffer.from(body as Uint8Array).toString('utf8'),
        };
        const answer = JSON.stringify({
          output: { message: { role: 'assistant', content: [{ text: 'x' }] } },
          stopReason: 'end_turn',
          usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
          metrics: { latencyMs: 1 },
        });
        return {
          response: {
            statusCode: 200,
            headers: { 'content-type': 'application/json' },
            body: Readable.from([Buffer.from(answer)]),
          },
        };
      },
    } as never,
  });
  const input = {
    modelId: 'us.anthropic.claude-3-5-sonnet-20240620-v1:0',
    messages: [{ role: 'user' as const, content: [{ text: 'Hi' }] }],
    inferenceConfig: { maxTokens: 64 },
  };
  await (stream ? client.send(new ConverseStreamCommand(input)) : client.send(new ConverseCommand(input))).catch(
    () => undefined,
  );
  vi.useRealTimers();
  if (!captured) throw new Error('the SDK sent nothing');
  return captured;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('SigV4 signing of Bedrock requests', () => {
  for (const [name, credentials] of [
    ['static keys', STATIC],
    ["a role's temporary credentials", ROLE],
  ] as const) {
    for (const stream of [false, true]) {
      it(`signs ${stream ? 'ConverseStream' : 'Converse'} with ${name} exactly as the SDK's client does`, async () => {
        const sdk = await sdkRequest(credentials, stream);
        const {
          authorization,
          'x-amz-date': date,
          'x-amz-security-token': token,
          'x-amz-content-sha256': hash,
          ...unsigned
        } = sdk.headers;

        const ours = await signBedrockRequest({
          url: `https://${sdk.hostname}${sdk.path}`,
          headers: unsigned,
          body: sdk.body,
          region: 'us-west-2',
          credentials,
          date: SIGNED_AT,
        });

        expect(ours.authorization).toBe(authorization);
        expect(ours['x-amz-date']).toBe(date);
        expect(ours['x-amz-security-token']).toBe(token);
        expect(ours['x-amz-content-sha256']).toBe(hash);
        expect(authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=\w+\/20261127\/us-west-2\/bedrock\/aws4_request/);
        const verified = verifySigV4(
          {
            method: 'POST',
            rawPath: sdk.path,
            headers: { ...sdk.headers, host: sdk.hostname },
            body: Buffer.from(sdk.body),
          },
          { credentials, region: 'us-west-2', service: 'bedrock', now: SIGNED_AT },
        );
        expect(verified).toEqual({ ok: true });
      });
    }
  }

  it("puts the model id in the path as the SDK's client does", async () => {
    const sdk = await sdkRequest(STATIC, false);
    const aws = channel({
      id: 'b1',
      provider: 'aws',
      key: `${STATIC.accessKeyId}|${STATIC.secretAccessKey}|us-west-2`,
    });

    const built = bedrock.buildRequest({
      channel: aws,
      endpoint: 'chat',
      body: { model: 'claude-3-5-sonnet-20240620', messages: [{ role: 'user', content: 'Hi' }] },
      stream: false,
    });

    expect(new URL(built.url).pathname).toBe(sdk.path);
    expect(new URL(built.url).host).toBe(sdk.hostname);
  });

  it('fails verification when one byte of the body differs from what was signed', async () => {
    const sdk = await sdkRequest(STATIC, false);

    const verified = verifySigV4(
      {
        method: 'POST',
        rawPath: sdk.path,
        headers: { ...sdk.headers, host: sdk.hostname },
        body: Buffer.from(`${sdk.body} `),
      },
      { credentials: STATIC, region: 'us-west-2', service: 'bedrock', now: SIGNED_AT },
    );

    expect(verified.ok).toBe(false);
  });
});

describe('Bedrock channel credentials', () => {
  it('reads ak|sk|region from the key', () => {
    const access = bedrockAccess(channel({ id: 'c', provider: 'aws', key: ' AKIAX | secret/x | eu-central-1 ' }));

    expect(access).toEqual({
      region: 'eu-central-1',
      credentials: { accessKeyId: 'AKIAX', secretAccessKey: 'secret/x' },
    });
  });

  it("signs with the function's role when the channel names no key, its region from settings", () => {
    const access = bedrockAccess(
      channel({ id: 'c', provider: 'aws', key: '', settings: { region: 'ap-northeast-1' } }),
    );
    const role = roleCredentials({ AWS_ACCESS_KEY_ID: 'ASIAR', AWS_SECRET_ACCESS_KEY: 's', AWS_SESSION_TOKEN: 't' });

    expect(access).toEqual({ region: 'ap-northeast-1' });
    expect(bedrockAccess(channel({ id: 'c', provider: 'aws', key: '||eu-north-1' }))).toEqual({ region: 'eu-north-1' });
    expect(role).toEqual({ accessKeyId: 'ASIAR', secretAccessKey: 's', sessionToken: 't' });
    expect(() => roleCredentials({})).toThrow('has no AWS credentials of its own');
  });

  it('refuses a key of another shape or a region that is not one, naming neither the key nor its secret', () => {
    const secret = 'verySecretValue0123456789';
    const keys = [
      `AKIAX|${secret}`,
      `AKIAX|${secret}|evil.example.com/`,
      `a|${secret}|us-east-1|token`,
      `|${secret}|x`,
    ];
    const errors = keys.map((key) => {
      try {
        bedrockAccess(channel({ id: 'c', provider: 'aws', key }));
        return 'no error';
      } catch (error) {
        return String(error);
      }
    });

    expect(errors).toHaveLength(4);
    for (const error of errors) {
      expect(error).toMatch(/not AWS credentials|no valid AWS region/);
      expect(error).not.toContain(secret);
    }
  });
});
