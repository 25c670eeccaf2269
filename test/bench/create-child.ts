/**
 * Child process of the create benchmark's in-process figure, bundled like a function and run with plain `node`:
 * - `handler`: the create-dataset handler called directly, as the Lambda runtime calls it, with a REST proxy
 *   event (the authorizer's context already in it) and a Lambda context;
 * - `raw`: a PutItem of the same item with the same condition, through the same document client
 *   (shared/clients/dynamodb.ts, the one the handler sends with).
 * The engine runs in a process of its own (AWS_ENDPOINT_URL_DYNAMODB). One call at a time, as one Lambda
 * execution environment serves requests, the two sides interleaved call by call. Stdout takes the handler's
 * metric lines, as in Lambda; the latencies go to the parent over IPC.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { handler } from '#functions/create-dataset/handler';
import { documentClient } from '#shared/clients/dynamodb';
import template from '../events/create-dataset.json' with { type: 'json' };
import { CREATE_CONDITION, createBody, createdItem } from './create-item.ts';

/** What the child reports: each side's latencies in ms, in call order. */
export interface InProcessRun {
  handler: number[];
  raw: number[];
}

function required(name: string): number {
  const value = Number(process.env[name]);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a whole number`);
  return value;
}

const table = process.env.DATASETS_TABLE ?? '';
const requests = required('BENCH_REQUESTS');
const warmup = required('BENCH_WARMUP');
const caller = template.requestContext.authorizer;

const context = {
  awsRequestId: 'bench',
  functionName: 'create-dataset',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:create-dataset',
  memoryLimitInMB: '1024',
} as Context;

// Built before the clock starts: API Gateway hands the function a ready event.
const eventFor = (i: number): APIGatewayProxyEvent =>
  ({
    ...template,
    body: JSON.stringify(createBody(i)),
    requestContext: { ...template.requestContext, requestId: `bench-${i}` },
  }) as unknown as APIGatewayProxyEvent;

let next = 0;
async function viaHandler(): Promise<number> {
  const event = eventFor(next++);
  const started = performance.now();
  const response = await handler(event, context);
  const ms = performance.now() - started;
  // The body is the API's envelope: no token or secret in it.
  if (response.statusCode !== 200) throw new Error(`the handler answered ${response.statusCode}: ${response.body}`);
  return ms;
}

async function raw(): Promise<number> {
  const i = next++;
  const started = performance.now();
  await documentClient.send(
    new PutCommand({ TableName: table, Item: createdItem(i, caller), ConditionExpression: CREATE_CONDITION }),
  );
  return performance.now() - started;
}

const run: InProcessRun = { handler: [], raw: [] };
for (let i = 0; i < warmup; i++) {
  await raw();
  await viaHandler();
}
// Call by call, alternating which side goes first: a busy moment of the machine hits both sides alike.
for (let i = 0; i < requests; i++) {
  if (i % 2 === 0) {
    run.raw.push(await raw());
    run.handler.push(await viaHandler());
  } else {
    run.handler.push(await viaHandler());
    run.raw.push(await raw());
  }
}
process.send?.(run, () => {
  documentClient.destroy();
  process.disconnect();
});
