import { Duration, type RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Architecture } from 'aws-cdk-lib/aws-lambda';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  type CfnBucket,
  HttpMethods,
  ObjectOwnership,
} from 'aws-cdk-lib/aws-s3';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { ENV } from '#shared/config';
import { SOURCES_ENV } from '#shared/kb/sources/config';
import { UPLOADS_PREFIX } from '#shared/kb/sources/upload-stores';
import type { KbSourceFunction } from '#shared/routes';
import { AppFunction } from './constructs/function.ts';
import type { AppTable } from './constructs/table.ts';
import type { StageConfig } from './stage-config.ts';

/*
 * The knowledge base's sources (docs/knowledge-base-sources.md): the source bucket (uploaded files and text kept as
 * files; S3-managed encryption, TLS only, every public access blocked, objects owned by the bucket, incomplete uploads
 * dropped after a day) and the three source functions (the creates; the read and its public link; the preview of a
 * source's chunks), each granted exactly what its code sends.
 */

export interface KbSourceResources {
  readonly bucket: Bucket;
  readonly functions: Readonly<Record<KbSourceFunction, AppFunction>>;
}

export interface KbSourceResourcesProps {
  readonly config: StageConfig;
  readonly datasets: AppTable;
  /** The deployment key the read links' signing key is derived from (shared/kb/sources/source-links.ts). */
  readonly channelIdKey: ISecret;
  /** An existing source bucket (the content functions'), else one is made here. */
  readonly bucket?: Bucket;
  readonly common: {
    readonly logRetention: RetentionDays;
    readonly removalPolicy: RemovalPolicy;
    readonly architecture?: Architecture;
  };
}

const OBJECT_ACTIONS = { put: 's3:PutObject', get: 's3:GetObject', delete: 's3:DeleteObject' } as const;

/** The source bucket with the product's defaults. */
export function sourceBucket(scope: Construct, config: StageConfig): Bucket {
  const bucket = new Bucket(scope, 'KbSourceBucket', {
    encryption: BucketEncryption.S3_MANAGED,
    blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
    objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
    enforceSSL: true,
    versioned: false,
    lifecycleRules: [
      { id: 'abort-incomplete-uploads', abortIncompleteMultipartUploadAfter: Duration.days(1) },
      // A direct upload not made a collection within a day is dropped (shared/kb/sources/upload-stores.ts).
      { id: 'expire-unused-uploads', prefix: UPLOADS_PREFIX, expiration: Duration.days(1) },
    ],
    // FastGPT's web client PUTs a file to its presigned address from the browser: the signed address is the
    // credential, so any origin may send it (no cookies, no other method).
    cors: [
      {
        allowedMethods: [HttpMethods.PUT],
        allowedOrigins: ['*'],
        allowedHeaders: ['content-type', 'x-amz-meta-name', 'x-amz-meta-dataset'],
        exposedHeaders: ['ETag'],
        maxAge: 3000,
      },
    ],
    removalPolicy: config.removalPolicy,
  });
  Validations.of(bucket).acknowledge({
    id: 'AwsSolutions::AwsSolutions-S1',
    reason:
      "The source bucket is read and written only by this stack's functions under their own roles, whose calls CloudTrail records; server access logs would need a second bucket and add nothing an operator acts on.",
  });
  return bucket;
}

/**
 * Grants `actions` on the bucket's objects (keys `<teamId>/<fileId>`, named at run time: the object wildcard is the
 * narrowest S3 allows) and sets KB_SOURCE_BUCKET. The training function's reading of sources uses it with `get`, plus
 * LINK_ALLOWED_HOSTS (sourceReadingEnvironment).
 */
export function useSourceBucket(
  fn: AppFunction,
  bucket: Bucket,
  actions: readonly (keyof typeof OBJECT_ACTIONS)[],
): void {
  fn.role.addToPrincipalPolicy(
    new PolicyStatement({ actions: actions.map((a) => OBJECT_ACTIONS[a]), resources: [bucket.arnForObjects('*')] }),
  );
  fn.setEnvironment(SOURCES_ENV.kbSourceBucket, bucket.bucketName);
  const stack = Stack.of(bucket);
  const logicalId = stack.resolve(stack.getLogicalId(bucket.node.defaultChild as CfnBucket)) as string;
  Validations.of(fn.role.node.findChild('DefaultPolicy')).acknowledge({
    id: `AwsSolutions::AwsSolutions-IAM5[Resource::<${logicalId}.Arn>/*]`,
    reason:
      "Source files are named at run time (<teamId>/<fileId>); the grant is limited to the source bucket's objects and the actions the function's code sends.",
  });
}

export function addKbSourceResources(scope: Construct, props: KbSourceResourcesProps): KbSourceResources {
  const { config, common } = props;
  const bucket = props.bucket ?? sourceBucket(scope, config);
  const make = (id: string, name: KbSourceFunction, description: string, memorySize: number, timeoutSeconds: number) =>
    new AppFunction(scope, id, {
      name,
      description,
      memorySize,
      timeout: Duration.seconds(timeoutSeconds),
      environment: { [ENV.logLevel]: config.logLevel },
      ...common,
    });

  const create = make(
    'KbCreateSourceCollection',
    'kb-create-source-collection',
    'POST …/collection/create/link, …/create/localFile, …/create/backup and …/create/template (multipart, at most 10 MB), …/collection/sync, …/presignDatasetFilePostUrl and …/create/fileId: collections with a source',
    // A 10 MB upload arrives as ~13.4 MB of base64 and is held twice while decoded and parsed.
    1024,
    30,
  );
  // GetItem checks the knowledge base (collections-port.ts); UpdateItem says, before its first collection, that it may hold content.
  create.useTable(props.datasets, ENV.datasetsTable, ['GetItem', 'UpdateItem']);
  // PutObject to store an upload (and to sign a direct upload's address); GetObject to read a direct upload;
  // DeleteObject to remove a stored file again when the collection cannot be created, and a used direct upload.
  useSourceBucket(create, bucket, ['put', 'get', 'delete']);

  const read = make(
    'KbReadCollection',
    'kb-read-collection',
    'POST /api/core/dataset/collection/read and the signed link it answers (GET …/collection/source, no authorizer)',
    256,
    10,
  );
  // GetObject: the presigned link the source route redirects to is signed with this role.
  useSourceBucket(read, bucket, ['get']);
  // GetItem: a collection of a deleted knowledge base (its content purged in the background) is not read meanwhile.
  read.useTable(props.datasets, ENV.datasetsTable, ['GetItem']);
  read.readSecret(props.channelIdKey, ENV.channelIdKeySecretId);

  const preview = make(
    'KbPreviewChunks',
    'kb-preview-chunks',
    "POST /api/core/dataset/file/getPreviewChunks: a source's first chunks, read and cut as its training will",
    // The parsers of the training (a PDF of up to 1,000 pages, a DOCX inflated up to 64 MB) in one request.
    1024,
    // Below API Gateway's 29 s: the reader's own limits (15 s a link, 20 s a PDF or DOCX) end first.
    28,
  );
  // GetItem checks the knowledge base is the caller's.
  preview.useTable(props.datasets, ENV.datasetsTable, ['GetItem']);
  // GetObject: an upload (uploads/<teamId>/<uploadId>), or a collection's stored file read again.
  useSourceBucket(preview, bucket, ['get']);

  return {
    bucket,
    functions: {
      'kb-create-source-collection': create,
      'kb-read-collection': read,
      'kb-preview-chunks': preview,
    },
  };
}
