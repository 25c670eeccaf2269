import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import fc from 'fast-check';
import { beforeEach, describe, expect, it } from 'vitest';
import { jsonText as jsonTextOf, TRICKY_KEYS } from '#test/reliability/fuzz-requests';
import { PROPERTY_RUNS } from '#test/reliability/harness';
import { proxyEvent } from '#test/support/events';
import { loadCreateDatasetHandler } from '#test/support/handler';
import { CREATED_FOLDER_FIELDS } from '../integration/create-dataset.helpers.ts';

const dynamo = mockClient(DynamoDBDocumentClient);
const CALLER = { scope: 'dataset', teamId: 'team-prop', tmbId: 'member-prop', tokenId: 'token-prop' };
// The one parent id the fake table knows: a folder of the caller's team.
const FOLDER_ID = '65a0c0ffee0000000000f01d';
const KNOWN_FIELDS = ['name', 'type', 'parentId', 'intro', 'avatar', 'vectorModel', 'agentModel', 'vlmModel'];
// A dataset adds its three models; the repository adds the by-parent index key.
// noContent: a knowledge base (not a folder) is stored empty until its first collection (DatasetRecord.noContent).
const STORED_FIELDS = new Set<string>([
  ...CREATED_FOLDER_FIELDS,
  'vectorModel',
  'agentModel',
  'vlmModel',
  'parentKey',
  'noContent',
]);

function event(body: string | null): APIGatewayProxyEvent {
  return proxyEvent('/api/core/dataset/create', body, CALLER);
}

/** The envelope of docs/knowledge-base-api.md, asserted whole; returns the parsed body. */
function expectEnvelope(response: APIGatewayProxyResult): Record<string, unknown> {
  const body = JSON.parse(response.body) as Record<string, unknown>;
  expect(Object.keys(body).sort()).toEqual(['code', 'data', 'message', 'statusText']);
  if (response.statusCode === 200) {
    expect(body).toStrictEqual({
      code: 200,
      statusText: '',
      message: '',
      data: expect.stringMatching(/^[0-9a-f]{24}$/),
    });
  } else {
    expect(response.statusCode).toBeGreaterThanOrEqual(400);
    expect(response.statusCode).toBeLessThan(500);
    expect(body).toMatchObject({ code: expect.any(Number), statusText: expect.any(String), data: null });
    expect(body.message).toEqual(expect.stringMatching(/\S/));
  }
  return body;
}

// Keys a prototype-pollution attempt or a sloppy `in` check would trip over, plus the real field names.
const trickyKey = fc.constantFrom(...TRICKY_KEYS, ...KNOWN_FIELDS);
const anyKey = fc.oneof(trickyKey, fc.string({ maxLength: 12 }));

/** Any JSON text, from the fuzz generators. */
const jsonText = jsonTextOf(KNOWN_FIELDS);

/** A value of the right or a wrong type for a body field. */
const fieldValue = fc.oneof(
  fc.constantFrom(null, '', ' ', 'dataset', 'folder', 'Folder', FOLDER_ID, FOLDER_ID.toUpperCase(), 'bge-m3', 'gpt-4o'),
  fc.constantFrom('text-embedding-3-small', 'nope-model', '65a0c0ffee0000000000beef', '\u0000', 'a\nb', '\u202e'),
  fc.string({ maxLength: 30 }),
  fc.string({ minLength: 90, maxLength: 2100 }),
  fc.integer(),
  fc.boolean(),
  fc.array(fc.string(), { maxLength: 2 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 2 }),
);

/** Bodies shaped like real requests: each known field either absent or any value. */
const fieldBody = fc.record(Object.fromEntries(KNOWN_FIELDS.map((f) => [f, fieldValue])), { requiredKeys: [] });

const { handler } = await loadCreateDatasetHandler('datasets-property');

describe('create-dataset body schema (property)', () => {
  beforeEach(() => {
    dynamo.reset();
    dynamo.on(PutCommand).resolves({});
    dynamo
      .on(GetCommand)
      .callsFake((input: { Key: { teamId: string; id: string } }) =>
        input.Key.id === FOLDER_ID && input.Key.teamId === CALLER.teamId
          ? { Item: { id: FOLDER_ID, teamId: CALLER.teamId, type: 'folder' } }
          : {},
      );
  });

  it('answers any JSON text with 200 or a 4xx in the envelope, never a 500', async () => {
    await fc.assert(
      fc.asyncProperty(jsonText, async (text) => {
        const response = await handler(event(text));

        expectEnvelope(response);
      }),
      { numRuns: PROPERTY_RUNS },
    );
  });

  it('answers any body built from the real fields with any values with 200 or a 4xx, never a 500', async () => {
    await fc.assert(
      fc.asyncProperty(fieldBody, async (body) => {
        const response = await handler(event(JSON.stringify(body)));

        expectEnvelope(response);
      }),
      { numRuns: PROPERTY_RUNS },
    );
  });

  it('answers any string, JSON or not, with 200 or a 4xx in the envelope', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string({ unit: 'binary' }), fc.constant(null)), async (text) => {
        const response = await handler(event(text));

        expectEnvelope(response);
      }),
      { numRuns: PROPERTY_RUNS },
    );
  });

  it('stores only known fields, with the caller team and member, for every accepted body', async () => {
    await fc.assert(
      fc.asyncProperty(fieldBody, fc.dictionary(anyKey, fc.jsonValue({ maxDepth: 2 })), async (body, extra) => {
        dynamo.resetHistory();

        const response = await handler(event(JSON.stringify({ ...extra, ...body })));

        const envelope = expectEnvelope(response);
        const puts = dynamo.commandCalls(PutCommand);
        if (response.statusCode !== 200) {
          expect(puts).toHaveLength(0);
          return;
        }
        expect(puts).toHaveLength(1);
        const item = puts[0]?.args[0].input.Item as Record<string, unknown>;
        expect(Object.keys(item).filter((k) => !STORED_FIELDS.has(k))).toEqual([]);
        expect(item).toMatchObject({ id: envelope.data, teamId: CALLER.teamId, tmbId: CALLER.tmbId });
        expect(Object.getPrototypeOf(item)).toBe(Object.prototype);
      }),
      { numRuns: PROPERTY_RUNS },
    );
  });

  it('takes no field from __proto__ or constructor keys and pollutes no prototype', async () => {
    const text =
      '{"__proto__":{"polluted":"yes","type":"folder","teamId":"team-x"},' +
      '"constructor":{"prototype":{"polluted":"yes"}},"name":"Docs"}';

    const response = await handler(event(text));

    expectEnvelope(response);
    expect(response.statusCode).toBe(200);
    const item = dynamo.commandCalls(PutCommand)[0]?.args[0].input.Item;
    expect(item).toMatchObject({ type: 'dataset', teamId: CALLER.teamId, name: 'Docs' });
    expect(item).not.toHaveProperty('polluted');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('never repeats a field value in an error message', async () => {
    // A value that could only reach the message by being echoed.
    const secret = fc.stringMatching(/^[A-Za-z0-9]{16,24}$/).map((s) => `SECRET${s}`);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...KNOWN_FIELDS, 'unknownField'),
        secret,
        fieldBody,
        async (field, value, body) => {
          const response = await handler(event(JSON.stringify({ ...body, [field]: value })));

          const envelope = expectEnvelope(response);
          expect(String(envelope.message)).not.toContain('SECRET');
        },
      ),
      { numRuns: PROPERTY_RUNS },
    );
  });
});
