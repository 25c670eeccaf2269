import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import type { handler as Handler } from '#functions/create-dataset/handler';
import { proxyEvent } from '#test/support/events';
import { expectDatasetInternalError } from '#test/support/responses';
import { teamRecords } from '../integration/create-dataset.helpers.ts';
import { useHandlerBehindFaultProxy } from './dynamo-fault-proxy.ts';

const setup = useHandlerBehindFaultProxy<typeof Handler>('#functions/create-dataset/handler', { MODEL_CATALOG: '' });
let teamCounter = 0;

function event(teamId: string, body: unknown): APIGatewayProxyEvent {
  return proxyEvent('/api/core/dataset/create', JSON.stringify(body), {
    scope: 'dataset',
    teamId,
    tmbId: 'member',
    tokenId: 'token',
  });
}

const newTeam = () => `team-engine-faults-${++teamCounter}`;

describe('create-dataset against a DynamoDB engine that fails (fault proxy, real SDK retries)', () => {
  it('answers the generic 500 and stores nothing when every write is throttled', async () => {
    const teamId = newTeam();
    setup.proxy.script = (op) =>
      op === 'PutItem'
        ? { kind: 'fail', status: 400, errorType: 'ProvisionedThroughputExceededException' }
        : { kind: 'forward' };

    const response = await setup.handler(event(teamId, { name: 'Docs' }));

    expectDatasetInternalError(response);
    expect(setup.proxy.calls.get('PutItem')).toBeGreaterThan(1);
    expect(await teamRecords(setup.documents, teamId)).toEqual([]);
  });

  it.each([
    ['DynamoDB answers 503 and then recovers', { kind: 'fail', status: 503, errorType: 'ServiceUnavailable' }],
    // The first PutItem takes effect, but the SDK sees a 500 and sends the same item again.
    [
      'a write succeeds but its response is lost',
      { kind: 'forward-then-fail', status: 500, errorType: 'InternalServerError' },
    ],
  ] as const)('stores exactly one record, under the id it answers, when %s', async (_case, firstPut) => {
    const teamId = newTeam();
    setup.proxy.script = (op, n) => (op === 'PutItem' && n === 1 ? firstPut : { kind: 'forward' });

    const response = await setup.handler(event(teamId, { name: 'Docs' }));

    expect(response.statusCode).toBe(200);
    const { data: id } = JSON.parse(response.body) as { data: string };
    expect((await teamRecords(setup.documents, teamId)).map((r) => r.id)).toEqual([id]);
  });

  it('stores nothing for a folder parent read that keeps failing', async () => {
    const teamId = newTeam();
    setup.proxy.script = (op) =>
      op === 'GetItem' ? { kind: 'fail', status: 500, errorType: 'InternalServerError' } : { kind: 'forward' };

    const response = await setup.handler(event(teamId, { name: 'Docs', parentId: '65a0c0ffee0000000000f01d' }));

    expect(response.statusCode).toBe(500);
    expect(setup.proxy.calls.get('PutItem')).toBeUndefined();
    expect(await teamRecords(setup.documents, teamId)).toEqual([]);
  });
});
