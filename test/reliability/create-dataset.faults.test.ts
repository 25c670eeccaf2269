import {
  ConditionalCheckFailedException,
  DynamoDBServiceException,
  InternalServerError,
  ProvisionedThroughputExceededException,
  RequestLimitExceeded,
  ThrottlingException,
} from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { proxyEvent } from '#test/support/events';
import { loadCreateDatasetHandler } from '#test/support/handler';

const dynamo = mockClient(DynamoDBDocumentClient);
const CALLER = { scope: 'dataset', teamId: 'team-faults', tmbId: 'member-faults', tokenId: 'token-faults' };
const FOLDER = '65a0c0ffee0000000000f01d';
const meta = { $metadata: { httpStatusCode: 500 } };

function event(body: unknown): APIGatewayProxyEvent {
  return proxyEvent('/api/core/dataset/create', JSON.stringify(body), CALLER);
}

// The SDK retries these with backoff before the function sees them; what reaches the function is final.
const FAILURES: ReadonlyArray<[string, () => Error]> = [
  [
    'ProvisionedThroughputExceededException',
    () =>
      new ProvisionedThroughputExceededException({
        message: 'Rate of requests exceeds the allowed throughput',
        ...meta,
      }),
  ],
  ['ThrottlingException', () => new ThrottlingException({ message: 'Rate exceeded for table datasets', ...meta })],
  [
    'RequestLimitExceeded',
    () => new RequestLimitExceeded({ message: 'Throughput exceeds the account limit', ...meta }),
  ],
  ['InternalServerError (500)', () => new InternalServerError({ message: 'Internal server error', ...meta })],
  [
    'ServiceUnavailable (503)',
    () =>
      new DynamoDBServiceException({
        name: 'ServiceUnavailable',
        $fault: 'server',
        message: 'Service unavailable for arn:aws:dynamodb:us-east-1:123456789012:table/datasets',
        $metadata: { httpStatusCode: 503 },
      }),
  ],
  ['a network error', () => Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })],
];

const GENERIC_500 = { code: 500, statusText: 'error', message: 'Internal error', data: null };

const { handler } = await loadCreateDatasetHandler('datasets-faults');

describe('create-dataset under DynamoDB faults (aws-sdk-client-mock)', () => {
  beforeEach(() => {
    dynamo.reset();
  });

  it.each(FAILURES)(
    'answers %s on the write with the generic 500 envelope after one full, conditional put',
    async (_, failure) => {
      dynamo.on(PutCommand).rejects(failure());

      const response = await handler(event({ name: 'Docs', intro: 'about' }));

      expect(response.statusCode).toBe(500);
      expect(JSON.parse(response.body)).toStrictEqual(GENERIC_500);
      const puts = dynamo.commandCalls(PutCommand);
      expect(puts).toHaveLength(1);
      // One PutItem carries the whole record and cannot overwrite: a failure leaves all of it or none of it.
      expect(puts[0]?.args[0].input).toMatchObject({
        TableName: 'datasets-faults',
        ConditionExpression: 'attribute_not_exists(id)',
        Item: expect.objectContaining({
          name: 'Docs',
          intro: 'about',
          teamId: CALLER.teamId,
          createTime: expect.any(String),
        }),
      });
    },
  );

  it.each(FAILURES)('answers %s on the parent read with the generic 500 and writes nothing', async (_, failure) => {
    dynamo.on(GetCommand).rejects(failure());
    dynamo.on(PutCommand).resolves({});

    const response = await handler(event({ name: 'Docs', parentId: FOLDER }));

    expect(response.statusCode).toBe(500);
    expect(JSON.parse(response.body)).toStrictEqual(GENERIC_500);
    expect(dynamo.commandCalls(PutCommand)).toHaveLength(0);
  });

  it('answers the id of its own write when a resent put collides with it (the first response was lost)', async () => {
    dynamo
      .on(PutCommand)
      .rejects(new ConditionalCheckFailedException({ message: 'The conditional request failed', ...meta }));
    dynamo.on(GetCommand).callsFake(() => ({ Item: dynamo.commandCalls(PutCommand)[0]?.args[0].input.Item }));

    const response = await handler(event({ name: 'Docs' }));

    expect(response.statusCode).toBe(200);
    const puts = dynamo.commandCalls(PutCommand);
    expect(puts).toHaveLength(1);
    expect(JSON.parse(response.body).data).toBe(puts[0]?.args[0].input.Item?.id);
  });

  it('retries an id collision once with a fresh id, and gives the generic 500 after a second one', async () => {
    dynamo
      .on(PutCommand)
      .rejects(new ConditionalCheckFailedException({ message: 'The conditional request failed', ...meta }));
    // Each conflicting id belongs to a record that is not ours.
    dynamo.on(GetCommand).resolves({ Item: { id: 'taken', teamId: CALLER.teamId, name: 'Someone else' } });

    const response = await handler(event({ name: 'Docs' }));

    expect(response.statusCode).toBe(500);
    expect(JSON.parse(response.body)).toStrictEqual(GENERIC_500);
    const ids = dynamo.commandCalls(PutCommand).map((c) => c.args[0].input.Item?.id);
    expect(ids).toHaveLength(2);
    expect(new Set(ids).size).toBe(2);
  });
});
