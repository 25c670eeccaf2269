import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Context } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it } from 'vitest';
import { outcomeAndOutput, tokenEvent, useDeployedAuthorizer } from '#test/support/authorizer';
import { proxyEvent } from '#test/support/events';
import { loadHandler } from '#test/support/handler';

// Lambda sets this for an on-demand execution environment; Powertools reports no cold start without it.
const LAMBDA_ENV = { AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand' };

// Lambda's context of one invocation, as the runtime passes it as the handler's second argument.
const lambdaContext = (awsRequestId: string, functionName: string): Context =>
  ({
    awsRequestId,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:123456789012:function:${functionName}`,
    memoryLimitInMB: '256',
  }) as Context;

/** The JSON log lines in `output`. */
const logLines = (output: string) =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('every log line of a deployed function carries the Lambda request id and the cold-start flag', () => {
  it('the authorizer: cold_start true on the first invocation of the environment, false on the next', async () => {
    const { handler, givenSecrets } = await useDeployedAuthorizer('INFO', LAMBDA_ENV);
    givenSecrets({ tokens: '{"tokens":[]}', adminKey: 'admin-key-0123456789-0123456789-0123456789' });

    const first = await outcomeAndOutput(() =>
      handler(tokenEvent('Bearer kb-unknown'), lambdaContext('req-1', 'auth')),
    );
    const second = await outcomeAndOutput(() => handler(tokenEvent('Bearer kb-other'), lambdaContext('req-2', 'auth')));

    expect(logLines(first.output)).toEqual([
      expect.objectContaining({ message: 'Denied', function_request_id: 'req-1', cold_start: true }),
    ]);
    expect(logLines(second.output)).toEqual([
      expect.objectContaining({ message: 'Denied', function_request_id: 'req-2', cold_start: false }),
    ]);
    expect(logLines(first.output)[0]).toMatchObject({ function_name: 'auth', function_memory_size: '256' });
  });

  it('a knowledge-base function: the line its envelope logs for an unexpected error names the invocation', async () => {
    const { handler } = await loadHandler<typeof import('#functions/create-dataset/handler')>(
      '#functions/create-dataset/handler',
      { DATASETS_TABLE: 'datasets-unit', MODEL_CATALOG: '', LOG_LEVEL: 'INFO', ...LAMBDA_ENV },
    );
    const dynamo = mockClient(DynamoDBDocumentClient);
    dynamo.on(PutCommand).rejects(new Error('DynamoDB is down'));
    const caller = { scope: 'dataset', teamId: 'team-a', tmbId: 'member-a', tokenId: 'token-a' };

    const { result, output } = await outcomeAndOutput(() =>
      handler(
        proxyEvent('/api/core/dataset/create', JSON.stringify({ name: 'Docs' }), caller),
        lambdaContext('req-create-1', 'create-dataset'),
      ),
    );
    dynamo.restore();

    expect(result?.statusCode).toBe(500);
    const errorLines = logLines(output).filter((line) => line.level === 'ERROR');
    expect(errorLines).toEqual([expect.objectContaining({ function_request_id: 'req-create-1', cold_start: true })]);
  });
});
