import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { TRAINING_MAX_RECEIVES, TRAINING_TIMEOUT } from '#infra/kb';
import { ENV } from '#shared/config';
import type { FunctionName } from '#shared/routes';
import { KB_CONTENT_BY_ID, KB_CONTENT_BY_PARENT, type TableName } from '#shared/tables';
import { arnOf, logicalId, permissionsOf, refOf, removeTempDirs, synthStack } from './synth.ts';

// infra/kb.ts: the knowledge base's content table, source bucket, training queue with its dead-letter queue, the
// content functions and the training function, each with exactly its grants.

afterAll(removeTempDirs);

type Json = Record<string, unknown>;
const { stack, template, monitoring } = synthStack();
const resources = template.toJSON().Resources as Record<string, { Type: string; Properties: Json }>;
const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
/** The one resource of a type (the test fails when there is not exactly one). */
function only(type: string): [string, { Properties: Json }] {
  const found = ofType(type);
  expect(found).toHaveLength(1);
  return found[0] as [string, { Properties: Json }];
}
const id = {
  table: (name: TableName) => logicalId(stack, stack.tables[name].table),
  role: (name: FunctionName) => logicalId(stack, stack.functions[name].role),
  fn: (name: FunctionName) => logicalId(stack, stack.functions[name].function),
  logs: (name: FunctionName) => logicalId(stack, stack.functions[name].logGroup),
};
const [bucketId] = only('AWS::S3::Bucket');
const objects = JSON.stringify({ 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucketId, 'Arn'] }, '/*']] });
const queues = ofType('AWS::SQS::Queue');
const [trainingQueueId] = queues.find(([, q]) => q.Properties.RedrivePolicy !== undefined) ?? [''];
const [deadLetterId] = queues.find(([, q]) => q.Properties.RedrivePolicy === undefined) ?? [''];
const indexArn = (index: string) =>
  JSON.stringify({ 'Fn::Join': ['', [{ 'Fn::GetAtt': [id.table('kbContent'), 'Arn'] }, `/index/${index}`]] });
const envOf = (name: FunctionName) =>
  ((resources[id.fn(name)]?.Properties.Environment as Json | undefined)?.Variables ?? {}) as Json;

/** Every action a function's role allows, with its resources, leaving out its own logs and X-Ray. */
function grants(name: FunctionName): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [action, on] of permissionsOf(template, id.role(name))) {
    if (action.startsWith('logs:') || action.startsWith('xray:')) continue;
    out[action] = [...on].sort();
  }
  return out;
}

describe('the training queue', () => {
  it('is FIFO and encrypted, hides a message six times the function timeout and dead-letters it after 4 receives', () => {
    const queue = resources[trainingQueueId]?.Properties as Json;
    const dlq = resources[deadLetterId]?.Properties as Json;

    expect(queue).toMatchObject({
      FifoQueue: true,
      SqsManagedSseEnabled: true,
      VisibilityTimeout: TRAINING_TIMEOUT.toSeconds() * 6,
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [deadLetterId, 'Arn'] }, maxReceiveCount: 4 },
    });
    expect(TRAINING_MAX_RECEIVES).toBe(4);
    expect(dlq).toMatchObject({ FifoQueue: true, SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 24 * 3600 });
  });

  it('refuses requests without TLS on both queues', () => {
    for (const [, policy] of ofType('AWS::SQS::QueuePolicy')) {
      expect(JSON.stringify(policy.Properties.PolicyDocument)).toContain('"aws:SecureTransport":"false"');
    }
    expect(ofType('AWS::SQS::QueuePolicy')).toHaveLength(2);
  });

  it('feeds train-collection one message at a time, reporting failures message by message', () => {
    const [, mapping] = only('AWS::Lambda::EventSourceMapping');

    expect(mapping.Properties).toMatchObject({
      EventSourceArn: { 'Fn::GetAtt': [trainingQueueId, 'Arn'] },
      FunctionName: { Ref: id.fn('train-collection') },
      BatchSize: 1,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    expect(resources[id.fn('train-collection')]?.Properties.Timeout).toBe(TRAINING_TIMEOUT.toSeconds());
  });

  it('alarms on the first message in the dead-letter queue', () => {
    const alarm = stack.monitoring.alarms.get('KbTrainingDeadLetters');
    // In the monitoring nested stack, its queue name passed in by the parent (test/infra/synth.ts, nestedTemplate).
    const props = monitoring.toJSON().Resources[logicalId(stack.monitoringStack, alarm as never)]?.Properties as Json;

    expect(props).toMatchObject({
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Namespace: 'AWS/SQS',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [deadLetterId, 'QueueName'] } }],
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
  });
});

describe('the source bucket', () => {
  it('blocks public access, encrypts and refuses requests without TLS', () => {
    expect(resources[bucketId]?.Properties).toMatchObject({
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
    });
    const [, policy] = only('AWS::S3::BucketPolicy');
    expect(JSON.stringify(policy.Properties.PolicyDocument)).toContain('"aws:SecureTransport":"false"');
  });
});

describe('least privilege', () => {
  const content = arnOf(id.table('kbContent'));
  const datasets = arnOf(id.table('datasets'));
  // The search's indexes, which these functions write or remove through ChunkIndexWriter (infra/kb.ts, useSearchIndexes).
  const vectors = arnOf(id.table('kbVectors'));
  const terms = arnOf(id.table('kbTerms'));

  it("lets kb-collections read the knowledge base, keep and mark collections, queue training and deletes, put source files, and remove a failed chunk with its index entries; a deleted collection's content goes in the background", () => {
    expect(grants('kb-collections')).toEqual({
      'dynamodb:GetItem': [content, datasets, terms].sort(),
      'dynamodb:PutItem': [content, terms].sort(),
      // The full-text index's `n` item and a block cut on removal (infra/kb.ts, useSearchIndexes).
      'dynamodb:DeleteItem': [terms],
      // datasets: a knowledge base's first collection says it may hold content (DatasetRecord.noContent); content:
      // renames, moves and the `deleting` mark of a background delete.
      'dynamodb:UpdateItem': [content, datasets, vectors, terms].sort(),
      'dynamodb:Query': [
        content,
        indexArn(KB_CONTENT_BY_ID.name),
        indexArn(KB_CONTENT_BY_PARENT.name),
        vectors,
        terms,
      ].sort(),
      // training/deleteTrainingData: one failed chunk, its vectors and postings.
      'dynamodb:BatchWriteItem': [content, vectors, terms].sort(),
      'dynamodb:BatchGetItem': [terms],
      'sqs:SendMessage': [arnOf(trainingQueueId)],
      'sqs:GetQueueAttributes': [arnOf(trainingQueueId)],
      'sqs:GetQueueUrl': [arnOf(trainingQueueId)],
      's3:PutObject': [objects],
    });
  });

  it('lets kb-data read the knowledge base, keep chunks and queue their embedding, and touch no file', () => {
    expect(grants('kb-data')).toEqual({
      'dynamodb:GetItem': [content, datasets, terms].sort(),
      'dynamodb:PutItem': [content, terms].sort(),
      // The full-text index's `n` item and a block cut on removal (infra/kb.ts, useSearchIndexes).
      'dynamodb:DeleteItem': [terms],
      'dynamodb:UpdateItem': [content, vectors, terms].sort(),
      'dynamodb:Query': [content, indexArn(KB_CONTENT_BY_ID.name), vectors, terms].sort(),
      'dynamodb:BatchWriteItem': [content, vectors, terms].sort(),
      'dynamodb:BatchGetItem': [terms],
      'sqs:SendMessage': [arnOf(trainingQueueId)],
      'sqs:GetQueueAttributes': [arnOf(trainingQueueId)],
      'sqs:GetQueueUrl': [arnOf(trainingQueueId)],
    });
  });

  it("lets kb-export-collection read a collection, its chunks and its knowledge base's record, and nothing else", () => {
    expect(grants('kb-export-collection')).toEqual({
      'dynamodb:GetItem': [datasets],
      'dynamodb:Query': [content, indexArn(KB_CONTENT_BY_ID.name)].sort(),
    });
  });

  it("lets train-collection consume the queue, write and delete chunks and source files, send itself a delete's continuation, make the relay's calls, and write nothing of datasets", () => {
    const found = grants('train-collection');

    // The message's collection and knowledge base in one BatchGetItem (shared/repositories/training-subjects.ts); a
    // background delete reads a deleted collection by its key.
    expect(found['dynamodb:GetItem']).toEqual([content, terms].sort());
    expect(found['dynamodb:BatchGetItem']).toEqual([content, datasets, terms].sort());
    expect(found['dynamodb:PutItem']).toEqual([terms]);
    expect(found['dynamodb:DeleteItem']).toEqual([terms, arnOf(id.table('relayState'))].sort());
    expect(found['dynamodb:BatchWriteItem']).toEqual([content, vectors, terms, arnOf(id.table('usage'))].sort());
    expect(found['dynamodb:Scan']).toEqual([arnOf(id.table('channels'))]);
    expect(found['dynamodb:Query']).toEqual(
      expect.arrayContaining([content, indexArn(KB_CONTENT_BY_PARENT.name), vectors, terms]),
    );
    expect(found['dynamodb:Query']).not.toContain(indexArn(KB_CONTENT_BY_ID.name));
    expect(found['s3:GetObject']).toEqual([objects]);
    expect(found['s3:DeleteObject']).toEqual([objects]);
    expect(found['s3:PutObject']).toBeUndefined();
    expect(found['sqs:ReceiveMessage']).toEqual([arnOf(trainingQueueId)]);
    expect(found['sqs:DeleteMessage']).toEqual([arnOf(trainingQueueId)]);
    // A background delete stopped by its time sends itself again, to its own queue only.
    expect(found['sqs:SendMessage']).toEqual([arnOf(trainingQueueId)]);
  });

  it("grants every function that writes the search's indexes each call the index's code sends", () => {
    // The DynamoDB commands named in the full-text index's and the vector store's sources (a call added there without
    // its grant fails deployed only: AccessDenied). BatchWriter sends BatchWriteItem, BatchRetry's getBatch BatchGetItem.
    const action: Record<string, string> = {
      GetCommand: 'GetItem',
      PutCommand: 'PutItem',
      DeleteCommand: 'DeleteItem',
      UpdateCommand: 'UpdateItem',
      QueryCommand: 'Query',
      BatchGetCommand: 'BatchGetItem',
      BatchWriteCommand: 'BatchWriteItem',
      BatchWriter: 'BatchWriteItem',
      getBatch: 'BatchGetItem',
    };
    const sent = (files: string[]) =>
      new Set(
        files.flatMap((file) =>
          [
            ...readFileSync(new URL(`../../shared/kb/search/${file}`, import.meta.url), 'utf8').matchAll(
              /new (\w+)\(|\.(getBatch)\(/g,
            ),
          ]
            .map((m) => action[(m[1] ?? m[2]) as string])
            .filter((a): a is string => a !== undefined),
        ),
      );
    const termsCalls = sent(['full-text-index.ts', 'postings.ts', 'term-sketch.ts', 'dynamo-batch.ts']);
    // The vector store's own commands, and the Query of dynamo-batch.ts's queryAll and deletePartition it calls.
    const vectorCalls = new Set([...sent(['vector-store.ts']), 'Query']);
    expect(termsCalls).toEqual(
      new Set(['GetItem', 'PutItem', 'DeleteItem', 'UpdateItem', 'Query', 'BatchGetItem', 'BatchWriteItem']),
    );
    for (const name of ['kb-data', 'train-collection'] as const) {
      const found = grants(name);
      for (const call of termsCalls) expect(found[`dynamodb:${call}`], `${name} ${call}`).toContain(terms);
      for (const call of vectorCalls) expect(found[`dynamodb:${call}`], `${name} ${call}`).toContain(vectors);
    }
  });

  it('never lets a content call read the channels table (its keys)', () => {
    for (const name of ['kb-collections', 'kb-data', 'kb-export-collection'] as const) {
      const all = Object.values(grants(name)).flat();
      expect([name, all.some((r) => r.includes(id.table('channels')))]).toEqual([name, false]);
    }
  });

  it("lets delete-dataset queue its knowledge bases' content purge, and neither read nor write that content itself", () => {
    const found = grants('delete-dataset');
    const all = Object.values(found).flat();

    expect(found['sqs:SendMessage']).toEqual([arnOf(trainingQueueId)]);
    for (const table of [content, vectors, terms]) expect([table, all.includes(table)]).toEqual([table, false]);
    expect(all.some((r) => r.includes(indexArn(KB_CONTENT_BY_ID.name)))).toBe(false);
    expect(Object.keys(found).filter((a) => a.startsWith('s3:'))).toEqual([]);
  });
});

describe('environment', () => {
  it('gives each content function exactly the names its configuration reads', () => {
    const searchIndexes = {
      [ENV.kbVectorsTable]: JSON.parse(refOf(id.table('kbVectors'))),
      [ENV.kbTermsTable]: JSON.parse(refOf(id.table('kbTerms'))),
      [ENV.kbVectorSearch]: 'index',
    };
    const common = {
      ...searchIndexes,
      [ENV.datasetsTable]: JSON.parse(refOf(id.table('datasets'))),
      [ENV.kbContentTable]: JSON.parse(refOf(id.table('kbContent'))),
      [ENV.kbTrainingQueueUrl]: { Ref: trainingQueueId },
      [ENV.logLevel]: 'INFO',
      [ENV.metricsNamespace]: 'KbChannelGateway/dev',
    };

    expect(envOf('kb-collections')).toEqual({ ...common, [ENV.kbSourceBucket]: { Ref: bucketId } });
    expect(envOf('kb-data')).toEqual(common);
    expect(envOf('kb-export-collection')).toEqual({
      [ENV.kbContentTable]: JSON.parse(refOf(id.table('kbContent'))),
      [ENV.datasetsTable]: JSON.parse(refOf(id.table('datasets'))),
      [ENV.logLevel]: 'INFO',
      [ENV.metricsNamespace]: 'KbChannelGateway/dev',
    });
    expect(envOf('delete-dataset')).toEqual({
      [ENV.datasetsTable]: JSON.parse(refOf(id.table('datasets'))),
      [ENV.kbTrainingQueueUrl]: { Ref: trainingQueueId },
      [ENV.logLevel]: 'INFO',
      [ENV.metricsNamespace]: 'KbChannelGateway/dev',
    });
    expect(envOf('train-collection')).toMatchObject({
      ...searchIndexes,
      [ENV.kbContentTable]: JSON.parse(refOf(id.table('kbContent'))),
      [ENV.kbSourceBucket]: { Ref: bucketId },
      [ENV.channelsTable]: JSON.parse(refOf(id.table('channels'))),
      // A background delete's continuation.
      [ENV.kbTrainingQueueUrl]: { Ref: trainingQueueId },
    });
  });
});
