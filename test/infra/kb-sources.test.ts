import { afterAll, describe, expect, it } from 'vitest';
import { ENV } from '#shared/config';
import { SOURCES_ENV } from '#shared/kb/sources/config';
import { UPLOADS_PREFIX } from '#shared/kb/sources/upload-stores';
import type { FunctionName } from '#shared/routes';
import { logicalId, permissionsOf, refOf, removeTempDirs, synthStack } from './synth.ts';

/*
 * The knowledge base's sources in the template (infra/kb-sources.ts): the source bucket's defaults, and each source
 * function's grants, both ways (what it may do, and what it may not).
 */

afterAll(removeTempDirs);

type Json = Record<string, unknown>;
const { stack, template } = synthStack();
const resources = template.toJSON().Resources as Record<string, { Type: string; Properties: Json }>;
const buckets = Object.entries(resources).filter(([, r]) => r.Type === 'AWS::S3::Bucket');
const [bucketId, bucket] = buckets[0] ?? ['', { Type: '', Properties: {} }];
const role = (name: FunctionName) => logicalId(stack, stack.functions[name].role);
const objects = JSON.stringify({ 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucketId, 'Arn'] }, '/*']] });
const env = (name: FunctionName) =>
  (((resources[logicalId(stack, stack.functions[name].function)]?.Properties.Environment ?? {}) as Json).Variables ??
    {}) as Json;

describe('the source bucket', () => {
  it('is one bucket, encrypted, private, owned by the bucket and dropping incomplete uploads', () => {
    expect(buckets).toHaveLength(1);
    expect(bucket.Properties).toMatchObject({
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
      LifecycleConfiguration: {
        Rules: [
          { AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 }, Status: 'Enabled' },
          { Id: 'expire-unused-uploads', Prefix: UPLOADS_PREFIX, ExpirationInDays: 1, Status: 'Enabled' },
        ],
      },
    });
  });

  it("takes a browser's PUT to a presigned upload address from any origin, and no other cross-origin request", () => {
    expect(bucket.Properties.CorsConfiguration).toEqual({
      CorsRules: [
        {
          AllowedMethods: ['PUT'],
          AllowedOrigins: ['*'],
          AllowedHeaders: ['content-type', 'x-amz-meta-name', 'x-amz-meta-dataset'],
          ExposedHeaders: ['ETag'],
          MaxAge: 3000,
        },
      ],
    });
  });

  it('refuses every request that does not use TLS', () => {
    const policy = Object.values(resources).find(
      (r) => r.Type === 'AWS::S3::BucketPolicy' && JSON.stringify(r.Properties.Bucket) === refOf(bucketId),
    );
    const statements = (((policy?.Properties.PolicyDocument ?? {}) as Json).Statement ?? []) as Json[];

    expect(statements).toContainEqual(
      expect.objectContaining({
        Effect: 'Deny',
        Action: 's3:*',
        Principal: { AWS: '*' },
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      }),
    );
  });
});

describe('the source functions', () => {
  it('lets the creates put, read (direct uploads) and delete source objects only', () => {
    const allowed = permissionsOf(template, role('kb-create-source-collection'));

    expect(allowed.get('s3:PutObject')).toEqual(new Set([objects]));
    expect(allowed.get('s3:GetObject')).toEqual(new Set([objects]));
    expect(allowed.get('s3:DeleteObject')).toEqual(new Set([objects]));
    expect([...allowed.keys()].filter((a) => a.startsWith('s3:')).sort()).toEqual([
      's3:DeleteObject',
      's3:GetObject',
      's3:PutObject',
    ]);
    expect(env('kb-create-source-collection')[SOURCES_ENV.kbSourceBucket]).toEqual({ Ref: bucketId });
    expect(allowed.has('secretsmanager:GetSecretValue')).toBe(false);
  });

  it('lets the read get source objects and the deployment key only, and write nothing', () => {
    const allowed = permissionsOf(template, role('kb-read-collection'));

    expect([...allowed.keys()].filter((a) => a.startsWith('s3:'))).toEqual(['s3:GetObject']);
    expect(allowed.get('s3:GetObject')).toEqual(new Set([objects]));
    expect(allowed.has('secretsmanager:GetSecretValue')).toBe(true);
    expect([...allowed.keys()].some((a) => a.startsWith('dynamodb:Put') || a.startsWith('dynamodb:Delete'))).toBe(
      false,
    );
    expect(env('kb-read-collection')[ENV.channelIdKeySecretId]).toBeDefined();
  });

  it('lets the preview get source objects only, and write nothing anywhere', () => {
    const allowed = permissionsOf(template, role('kb-preview-chunks'));
    const writes = /^(s3:(Put|Delete)|dynamodb:(Put|Update|Delete|BatchWrite)|sqs:Send|secretsmanager:)/;

    expect([...allowed.keys()].filter((a) => a.startsWith('s3:'))).toEqual(['s3:GetObject']);
    expect(allowed.get('s3:GetObject')).toEqual(new Set([objects]));
    expect([...allowed.keys()].filter((a) => writes.test(a))).toEqual([]);
    expect(env('kb-preview-chunks')).toMatchObject({
      [SOURCES_ENV.kbSourceBucket]: { Ref: bucketId },
      [ENV.datasetsTable]: expect.anything(),
      [ENV.kbContentTable]: expect.anything(),
    });
    expect(env('kb-preview-chunks')[ENV.kbTrainingQueueUrl]).toBeUndefined();
  });

  it('gives no other function access to the source bucket', () => {
    // The content functions keep text as files and delete them, the training reads sources, the knowledge-base
    // delete removes a knowledge base's files (infra/kb.ts; test/infra/kb.test.ts asserts their grants).
    const content = ['kb-collections', 'train-collection', 'delete-dataset'];
    const others = (Object.keys(stack.functions) as FunctionName[]).filter(
      (name) => ![...content, 'kb-create-source-collection', 'kb-read-collection', 'kb-preview-chunks'].includes(name),
    );
    for (const name of others) {
      const touching = [...permissionsOf(template, role(name)).entries()].filter(([, on]) =>
        [...on].some((r) => r.includes(bucketId)),
      );
      expect(touching, name).toEqual([]);
    }
  });
});
