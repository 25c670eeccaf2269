import { beforeAll, describe, expect, it } from 'vitest';
import type { FakeUpstream } from '#test/support/fake-upstreams';
import { type contentClient, newContentClient, CONTENT_PATHS as P, useEmbeddingWorld } from './kb-content.helpers.ts';

// docs/knowledge-base-api.md, "Training errors", end to end through `npm start`'s server: a fake OpenAI upstream
// imported as a channel fails every embedding while a text collection trains, then recovers; FastGPT's training
// dialog's calls list, show, edit, retry and remove the failed chunks.

const T = {
  error: '/api/core/dataset/training/getTrainingError',
  detail: '/api/core/dataset/training/getTrainingDataDetail',
  update: '/api/core/dataset/training/updateTrainingData',
  remove: '/api/core/dataset/training/deleteTrainingData',
  hasError: '/api/core/dataset/training/hasDatasetTrainingError',
  datasetErrors: '/api/core/dataset/training/getDatasetTrainingError',
  retryAll: '/api/core/dataset/training/retryErrorCollections',
} as const;
const TEXT = [
  'The relay routes each call to a channel by priority and weight, and fails over to the next one.',
  'A knowledge base splits its documents into chunks and embeds every chunk with its vector model.',
  'The search test finds chunks by their vectors, by full text, or by both merged with reciprocal ranks.',
].join('\n\n');

interface ErrorItem {
  _id: string;
  mode: string;
  q: string;
  chunkIndex: number;
  errorMsg: string;
  collectionId: string;
}

const world = useEmbeddingWorld();
const { server } = world;
let upstream: FakeUpstream;
let api: ReturnType<typeof contentClient>;
beforeAll(() => {
  ({ upstream, api } = world);
});

const errorsOf = (collectionId: string) =>
  api.ok<{ list: ErrorItem[]; total: number }>(api.post(T.error, { collectionId, offset: 0, pageSize: 15 }));

/** Polls the collection's error list until `done` holds of it. */
async function waitForErrors(collectionId: string, done: (list: ErrorItem[]) => boolean) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const { list } = await errorsOf(collectionId);
    if (done(list)) return list;
    if (Date.now() > deadline) throw new Error(`errors still ${JSON.stringify(list.map((i) => i._id))}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("FastGPT's training dialog, error tab", () => {
  it('lists the chunks the upstream failed, edits and retries one then the rest once it recovers, and removes one', async () => {
    const datasetId = await api.dataset('text-embedding-3-small');
    // A 400 fails the embedding at once and leaves the channel's health alone (three 5xx would cool it down for a
    // minute, and the retries after the recovery would find no channel).
    upstream.faultAlways({ kind: 'status', status: 400 });
    const { collectionId } = await api.ok<{ collectionId: string }>(
      api.post(P.createText, { datasetId, name: 'Flaky', text: TEXT, chunkSize: 64 }),
    );
    const failed = await api.trained(collectionId);
    const ids = { datasetId, collectionId };

    expect(failed).toMatchObject({ status: 'error', hasError: true });
    expect(await api.ok(api.get(T.hasError, { datasetId }))).toEqual({ hasError: true });
    const listed = await errorsOf(collectionId);
    expect(listed.total).toBeGreaterThanOrEqual(3);
    expect(listed.list.map((i) => i.chunkIndex)).toEqual([...listed.list.keys()]);
    expect(listed.list.every((i) => i.mode === 'chunk' && i.errorMsg === failed.errorMsg)).toBe(true);
    const [first, second, ...rest] = listed.list as [ErrorItem, ErrorItem, ...ErrorItem[]];
    expect(await api.ok(api.post(T.detail, { ...ids, dataId: first._id }))).toEqual({
      _id: first._id,
      datasetId,
      collectionId,
      mode: 'chunk',
      q: first.q,
      a: '',
    });

    expect(await api.ok(api.post(T.remove, { ...ids, dataId: second._id }))).toEqual({});
    expect((await errorsOf(collectionId)).total).toBe(listed.total - 1);
    expect((await api.get(P.dataDetail, { id: second._id })).body).toMatchObject({ code: 501006 });

    upstream.clearFaults();
    expect(await api.ok(api.put(T.update, { ...ids, dataId: first._id, q: 'Edited: the relay fails over.' }))).toEqual(
      {},
    );
    await waitForErrors(collectionId, (list) => !list.some((i) => i._id === first._id));
    expect(await api.ok(api.get(P.dataDetail, { id: first._id }))).toMatchObject({
      q: 'Edited: the relay fails over.',
    });
    expect(await api.ok(api.get(T.hasError, { datasetId }))).toEqual({ hasError: true });

    expect(await api.ok(api.put(T.update, { collectionId }))).toEqual({});
    await waitForErrors(collectionId, (list) => list.length === 0);

    expect(await api.ok(api.get(T.hasError, { datasetId }))).toEqual({ hasError: false });
    const detail = await api.ok<Record<string, unknown>>(api.get(P.detail, { id: collectionId }));
    expect(detail).toMatchObject({ status: 'ready', hasError: false, dataAmount: listed.total - 1 });
    expect(detail).not.toHaveProperty('errorMsg');
    const training = await api.ok<{ errorCounts: Record<string, number> }>(api.get(P.trainingDetail, { collectionId }));
    expect(Object.values(training.errorCounts).every((n) => n === 0)).toBe(true);
    const found = await api.ok<{ list: { id: string }[] }>(
      api.post(P.searchTest, { datasetId, text: 'relay channel', searchMode: 'embedding', limit: 5000, similarity: 0 }),
    );
    expect(found.list.map((c) => c.id).sort()).toEqual([first._id, ...rest.map((i) => i._id)].sort());
  });

  it("lists a knowledge base's failed collections, loads more of one, and retries them all once the upstream recovers", async () => {
    const datasetId = await api.dataset('text-embedding-3-small');
    upstream.faultAlways({ kind: 'status', status: 400 });
    const created: string[] = [];
    for (const name of ['One', 'Two']) {
      const { collectionId } = await api.ok<{ collectionId: string }>(
        api.post(P.createText, { datasetId, name, text: TEXT, chunkSize: 64 }),
      );
      await api.trained(collectionId);
      created.push(collectionId);
    }
    interface Group {
      collection: { _id: string; name: string; type: string; sourceName: string };
      items: ErrorItem[];
      errorCount: number;
      hasMoreItems: boolean;
    }
    const groups = (body: Record<string, unknown>) =>
      api.ok<{ list: Group[]; total: number }>(api.post(T.datasetErrors, { datasetId, ...body }));

    const page = await groups({ offset: 0, pageSize: 10, itemPageSize: 2 });
    expect(page.total).toBe(2);
    expect(page.list.map((g) => g.collection._id)).toEqual([...created].sort());
    const [group] = page.list as [Group];
    const all = await errorsOf(group.collection._id);
    const detail = await api.ok<{ name: string; type: string }>(api.get(P.detail, { id: group.collection._id }));
    expect(group).toMatchObject({
      collection: { name: detail.name, type: detail.type, sourceName: detail.name },
      errorCount: all.total,
      hasMoreItems: true,
    });
    expect(group.items).toEqual(all.list.slice(0, 2));
    const more = await groups({ collectionId: group.collection._id, itemOffset: 2, itemPageSize: 20 });
    expect(more.list[0]?.items).toEqual(all.list.slice(2));
    // FastGPT's newer collection list draws its red badge from these.
    const badges = async () =>
      (await api.ok<{ list: Record<string, unknown>[] }>(api.post(P.listV2, { datasetId }))).list.map((c) => ({
        finalErrorAmount: c.finalErrorAmount,
        slowestTrainingMode: c.slowestTrainingMode,
        slowestTrainingStatus: c.slowestTrainingStatus,
      }));
    const failedBadge = { finalErrorAmount: all.total, slowestTrainingMode: 'chunk', slowestTrainingStatus: 'error' };
    expect(await badges()).toEqual([failedBadge, failedBadge]);

    upstream.clearFaults();
    expect(await api.ok(api.put(T.retryAll, { datasetId }))).toEqual({});
    for (const collectionId of created) await waitForErrors(collectionId, (list) => list.length === 0);
    expect(await groups({})).toEqual({ list: [], total: 0 });
    const readyBadge = { finalErrorAmount: 0, slowestTrainingMode: undefined, slowestTrainingStatus: 'ready' };
    expect(await badges()).toEqual([readyBadge, readyBadge]);
    expect(await api.ok(api.get(T.hasError, { datasetId }))).toEqual({ hasError: false });
  });

  it("answers another team's collection and chunk ids as unknown ones, changing nothing", async () => {
    const datasetId = await api.dataset('text-embedding-3-small');
    upstream.faultAlways({ kind: 'status', status: 400 });
    const { collectionId } = await api.ok<{ collectionId: string }>(
      api.post(P.createText, { datasetId, name: 'Mine', text: TEXT, chunkSize: 64 }),
    );
    await api.trained(collectionId);
    upstream.clearFaults();
    const [item] = (await errorsOf(collectionId)).list as [ErrorItem];
    const other = await newContentClient(server);
    const code = async (reply: ReturnType<typeof api.post>) => {
      const { status, body } = await reply;
      return [status, body.code];
    };

    expect(await code(other.post(T.error, { collectionId }))).toEqual([404, 501003]);
    expect(await code(other.post(T.detail, { collectionId, dataId: item._id }))).toEqual([404, 501003]);
    expect(await code(other.put(T.update, { dataId: item._id, q: 'taken' }))).toEqual([404, 501006]);
    expect(await code(other.put(T.update, { collectionId }))).toEqual([404, 501003]);
    expect(await code(other.put(T.update, { datasetId }))).toEqual([404, 501002]);
    expect(await code(other.post(T.remove, { dataId: item._id }))).toEqual([404, 501006]);
    expect(await code(other.post(T.datasetErrors, { datasetId }))).toEqual([404, 501002]);
    expect(await code(other.put(T.retryAll, { datasetId, collectionIds: [collectionId] }))).toEqual([404, 501002]);
    expect(await code(api.post(T.remove, { dataId: '0'.repeat(24) }))).toEqual([404, 501006]);

    const after = await errorsOf(collectionId);
    expect(after.list[0]).toEqual(item);
    expect(await api.ok(api.get(P.dataDetail, { id: item._id }))).toMatchObject({ q: item.q });
  });
});
