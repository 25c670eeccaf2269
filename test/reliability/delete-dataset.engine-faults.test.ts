import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import type { handler as Handler } from '#functions/delete-dataset/handler';
import type { DatasetRecord } from '#shared/repositories/datasets';
import { proxyEvent } from '#test/support/events';
import { teamRecords } from '../integration/create-dataset.helpers.ts';
import { seedRecord, seedRecords } from '../integration/knowledge-base.helpers.ts';
import { useHandlerBehindFaultProxy } from './dynamo-fault-proxy.ts';

const setup = useHandlerBehindFaultProxy<typeof Handler>('#functions/delete-dataset/handler');
let teamCounter = 0;

function deleteEvent(teamId: string, id: string): APIGatewayProxyEvent {
  return {
    ...proxyEvent('/api/core/dataset/delete', null, { scope: 'dataset', teamId, tmbId: 'member', tokenId: 'token' }),
    httpMethod: 'DELETE',
    queryStringParameters: { id },
  };
}

/** A folder with 3 folders, 2 folders in each, 40 datasets in each of those (250 records), and 12 records beside it. */
async function seedTree(teamId: string) {
  const make = (parentId: string | null, type: 'dataset' | 'folder', name: string) =>
    seedRecord(teamId, parentId, type, name);
  const top = make(null, 'folder', 'top');
  const level1 = [1, 2, 3].map((i) => make(top.id, 'folder', `l1-${i}`));
  const level2 = level1.flatMap((f) => [1, 2].map((i) => make(f.id, 'folder', `${f.name}/${i}`)));
  const leaves = level2.flatMap((f) => Array.from({ length: 40 }, (_, i) => make(f.id, 'dataset', `${f.name}/d${i}`)));
  const beside = make(null, 'folder', 'beside');
  const kept = [beside, ...Array.from({ length: 11 }, (_, i) => make(i % 2 ? beside.id : null, 'dataset', `k${i}`))];
  await seedRecords(setup.documents, [top, ...level1, ...level2, ...leaves, ...kept]);
  return { top, subtree: [top, ...level1, ...level2, ...leaves], kept };
}

/** Records whose parent is missing: what a delete must never leave behind. */
function orphans(records: readonly DatasetRecord[]): string[] {
  const ids = new Set(records.map((r) => r.id));
  return records.filter((r) => r.parentId !== null && !ids.has(r.parentId)).map((r) => r.id);
}

const ids = (records: readonly DatasetRecord[]) => records.map((r) => r.id).sort();

describe('delete-dataset against a DynamoDB engine that fails (fault proxy, real SDK retries)', () => {
  it('leaves a reachable subtree when writes fail after the first batch, and a repeat deletes the rest', async () => {
    const teamId = `team-delete-faults-${++teamCounter}`;
    const { top, subtree, kept } = await seedTree(teamId);
    setup.proxy.script = (op, n) =>
      op === 'BatchWriteItem' && n > 1
        ? { kind: 'fail', status: 400, errorType: 'ValidationException' }
        : { kind: 'forward' };

    const failed = await setup.handler(deleteEvent(teamId, top.id));
    const afterFailure = await teamRecords(setup.documents, teamId);
    setup.proxy.script = () => ({ kind: 'forward' });
    const repeated = await setup.handler(deleteEvent(teamId, top.id));

    expect(failed.statusCode).toBe(500);
    expect(JSON.parse(failed.body)).toEqual({ code: 500, statusText: 'error', message: 'Internal error', data: null });
    // The first batch (25 datasets) went; everything else is still there and hangs from the folder.
    expect(afterFailure).toHaveLength(subtree.length + kept.length - 25);
    expect(afterFailure.map((r) => r.id)).toContain(top.id);
    expect(orphans(afterFailure)).toEqual([]);
    expect(repeated.statusCode).toBe(200);
    expect(ids(await teamRecords(setup.documents, teamId))).toEqual(ids(kept));
  });

  it('deletes nothing when the subtree walk fails, and a repeat deletes it all', async () => {
    const teamId = `team-delete-faults-${++teamCounter}`;
    const { top, kept, subtree } = await seedTree(teamId);
    setup.proxy.script = (op, n) =>
      op === 'Query' && n > 2 ? { kind: 'fail', status: 400, errorType: 'ValidationException' } : { kind: 'forward' };

    const failed = await setup.handler(deleteEvent(teamId, top.id));
    const afterFailure = await teamRecords(setup.documents, teamId);
    setup.proxy.script = () => ({ kind: 'forward' });
    const repeated = await setup.handler(deleteEvent(teamId, top.id));

    expect(failed.statusCode).toBe(500);
    expect(afterFailure).toHaveLength(subtree.length + kept.length);
    expect(repeated.statusCode).toBe(200);
    expect(ids(await teamRecords(setup.documents, teamId))).toEqual(ids(kept));
  });

  it('finishes in one call when the engine hands back unprocessed items, retrying only those', async () => {
    const teamId = `team-delete-faults-${++teamCounter}`;
    const { top, kept } = await seedTree(teamId);
    setup.proxy.script = (op, n) =>
      op === 'BatchWriteItem' && n % 2 === 1 ? { kind: 'partial-batch', keep: 7 } : { kind: 'forward' };

    const reply = await setup.handler(deleteEvent(teamId, top.id));

    expect(reply.statusCode).toBe(200);
    expect(ids(await teamRecords(setup.documents, teamId))).toEqual(ids(kept));
    expect(setup.proxy.calls.get('BatchWriteItem')).toBeGreaterThan(Math.ceil(250 / 25));
  });

  it('answers the generic 500 without the table name or SDK text when the engine keeps failing', async () => {
    const teamId = `team-delete-faults-${++teamCounter}`;
    const { top } = await seedTree(teamId);
    setup.proxy.script = (op) =>
      op === 'GetItem' ? { kind: 'fail', status: 400, errorType: 'ValidationException' } : { kind: 'forward' };

    const reply = await setup.handler(deleteEvent(teamId, top.id));

    expect(reply.statusCode).toBe(500);
    expect(reply.body).not.toMatch(/datasets|ValidationException|injected/);
  });
});
