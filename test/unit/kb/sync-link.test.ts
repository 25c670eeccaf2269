import { describe, expect, it } from 'vitest';
import { syncLinkCollection } from '#functions/kb-create-source-collection/sync-link';
import { SourceError } from '#shared/kb/contract';
import type { StoredCollection } from '#shared/repositories/kb-content';
import { refusal } from '#test/support/kb-content';

// The sync core with its parts stubbed: what it refuses before it reads the page, and what it leaves alone after.

const caller = { scope: 'dataset', teamId: 'team', tmbId: 'member', tokenId: 'token' } as const;
const link: StoredCollection = {
  pk: 'p',
  sk: 's',
  id: 'a'.repeat(24),
  teamId: 'team',
  tmbId: 'member',
  datasetId: 'b'.repeat(24),
  parentId: null,
  parentKey: 'k',
  type: 'link',
  name: 'https://example.com/',
  rawLink: 'https://example.com/',
  status: 'ready',
  generation: 1,
  createTime: '2026-11-28T00:00:00.000Z',
  updateTime: '2026-11-28T00:00:00.000Z',
  dataAmount: 1,
  trainingAmount: 0,
};

function world(collection: StoredCollection, read: () => Promise<{ text: string }>) {
  const calls = { reads: 0, updates: 0, sent: 0 };
  const deps = {
    content: {
      findCollection: async () => collection,
      updateCollection: async () => {
        calls.updates++;
        return true;
      },
    },
    queue: { send: async () => void calls.sent++ },
    now: () => new Date(),
    readLink: async () => {
      calls.reads++;
      return read();
    },
  };
  return { deps, calls };
}

const sync = (deps: ReturnType<typeof world>['deps']) =>
  syncLinkCollection({ body: { collectionId: link.id }, caller }, deps);

describe('syncLinkCollection', () => {
  it('answers 429 for a collection being trained, without reading its page', async () => {
    for (const status of ['queued', 'training'] as const) {
      const { deps, calls } = world({ ...link, status }, async () => ({ text: 'x' }));
      expect(await refusal(sync(deps))).toEqual({ httpStatus: 429, code: 429 });
      expect(calls).toEqual({ reads: 0, updates: 0, sent: 0 });
    }
  });

  it('answers 501001 for a collection that is not a link, without reading anything', async () => {
    const { deps, calls } = world({ ...link, type: 'file', rawLink: undefined, fileId: 'f' }, async () => ({
      text: 'x',
    }));

    expect(await refusal(sync(deps))).toEqual({ httpStatus: 400, code: 501001 });
    expect(calls.reads).toBe(0);
  });

  it('answers 400 with the reader’s reason when the page cannot be read, and queues nothing', async () => {
    const { deps, calls } = world(link, async () => {
      throw new SourceError('the page answered HTTP 404');
    });

    const error = await sync(deps).catch((e: unknown) => e);

    expect(error).toMatchObject({ httpStatus: 400, code: 507000, message: 'the page answered HTTP 404' });
    expect(calls).toEqual({ reads: 1, updates: 0, sent: 0 });
  });

  it('trains a collection without a stored hash again (trained before hashes were kept)', async () => {
    const { deps, calls } = world(link, async () => ({ text: 'the page' }));

    expect(await sync(deps)).toBe('success');
    expect(calls).toEqual({ reads: 1, updates: 1, sent: 1 });
  });
});
