import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { trainBatch } from '#functions/train-collection/train-collection';
import type { TrainingDeps } from '#shared/kb/training';

const record = (messageId: string, body: unknown) => ({ messageId, body: JSON.stringify(body) });
const message = (collectionId: string) => ({
  kind: 'collection',
  teamId: 't',
  datasetId: 'd',
  collectionId,
  generation: 1,
});

/** Training deps whose first read fails for the collections named (a storage error), and succeeds otherwise. */
function deps(failing: readonly string[], reads: string[]): TrainingDeps {
  return {
    subjects: {
      async read(_t: string, _d: string, id: string) {
        reads.push(id);
        if (failing.includes(id)) throw new Error('ProvisionedThroughputExceededException');
        return {};
      },
    },
  } as unknown as TrainingDeps;
}

const logs: string[] = [];
const logger = { warn: (m: string) => void logs.push(m), error: (m: string) => void logs.push(m) };

describe('the training function (SQS consumer)', () => {
  it('reports a failed message, and the later messages of its batch, for SQS to retry in order', async () => {
    const reads: string[] = [];
    const event = {
      Records: [record('m1', message('ok')), record('m2', message('bad')), record('m3', message('later'))],
    } as unknown as SQSEvent;

    const out = await trainBatch(event, deps(['bad'], reads), logger);

    expect(out.batchItemFailures).toEqual([{ itemIdentifier: 'm2' }, { itemIdentifier: 'm3' }]);
    expect(reads).toEqual(['ok', 'bad']);
  });

  it('drops a message that is not a training message instead of retrying it forever', async () => {
    const event = {
      Records: [record('m1', { kind: 'other' }), { messageId: 'm2', body: 'not json' }],
    } as unknown as SQSEvent;

    const out = await trainBatch(event, deps([], []), logger);

    expect(out.batchItemFailures).toEqual([]);
    expect(logs.some((l) => l.includes('dropped'))).toBe(true);
  });
});
