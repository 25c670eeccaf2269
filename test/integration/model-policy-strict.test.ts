/**
 * MODEL_POLICY=strict: a model name the catalogue does not know is 400/501010 again, on every call
 * that stores one, whichever spelling names it (docs/knowledge-base-api.md, "Model names").
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { LocalAccessToken } from '#shared/local-credentials';
import { useTestServer } from '#test/support/local-server';
import { addAccessToken, expectError, teamRecords } from './create-dataset.helpers.ts';
import { kbClient } from './knowledge-base.helpers.ts';

let team: LocalAccessToken;
let api: ReturnType<typeof kbClient>;

const server = useTestServer({ MODEL_POLICY: 'strict' });

beforeEach(async () => {
  team = await addAccessToken(server);
  api = kbClient(server, `Bearer ${team.token}`);
});

describe('MODEL_POLICY=strict', () => {
  it.each([
    ['vectorModel', 'vector'],
    ['agentModel', 'agent'],
    ['vlmModel', 'vlm'],
    ['vectorModelId', 'vector'],
    ['agentModelId', 'agent'],
    ['vlmModelId', 'vlm'],
  ])('answers 400/501010 for an unknown %s in a create and stores nothing', async (field, kind) => {
    const reply = await api.create({ name: 'Docs', [field]: 'no-such-model' });

    expectError(reply, 400, 501010);
    expect(reply.body.statusText).toBe('invalidVectorModelOrQAModel');
    expect(reply.body.message).toMatch(new RegExp(`^${field} must be one of the available ${kind} models: `));
    expect(await teamRecords(server.documents, team.teamId)).toEqual([]);
  });

  it('still accepts the models of the catalogue, those of the documented examples included', async () => {
    const id = await api.make({ name: 'Docs', agentModel: 'gpt-3.5-turbo-16k', vlmModel: 'gpt-4.1' });

    expect(id).toMatch(/^[0-9a-f]{24}$/);
  });

  it.each([['agentModel'], ['vlmModelId']])('answers 400/501010 for an unknown %s in an update', async (field) => {
    const id = await api.make({ name: 'Docs' });

    expectError(await api.update({ id, [field]: 'gpt-2' }), 400, 501010);
  });

  it('ignores model fields of a folder: the folder call and a folder create store none', async () => {
    const reply = await api.createFolder({ name: 'Dir', vectorModel: 'no-such-model' });
    const created = await api.create({ name: 'Dir 2', type: 'folder', agentModel: 'no-such-model' });

    expect([reply.status, created.status]).toEqual([200, 200]);
  });
});
