import { describe, expect, it } from 'vitest';
import { DatasetApiError } from '#shared/errors';
import { bodyError, createDatasetBodySchema } from '../../functions/create-dataset/schema.ts';

/** Parses a body and returns the API error it maps to (fails the test if it parses). */
function errorFor(body: unknown): DatasetApiError {
  const parsed = createDatasetBodySchema.safeParse(body);
  if (parsed.success) throw new Error(`expected ${JSON.stringify(body)} to be rejected`);
  return bodyError(parsed.error);
}

describe('createDatasetBodySchema', () => {
  it('fills the defaults of a body with only a name', () => {
    const parsed = createDatasetBodySchema.parse({ name: 'Docs' });

    expect(parsed).toEqual({ name: 'Docs', type: 'dataset', parentId: null, intro: '' });
  });

  it('trims the name and drops unknown fields', () => {
    const parsed = createDatasetBodySchema.parse({ name: '  Docs \n', teamId: 'evil', tmbId: 'evil', extra: 1 });

    expect(parsed).toEqual({ name: 'Docs', type: 'dataset', parentId: null, intro: '' });
  });

  it.each([
    ['null type', { name: 'a', type: null }, { type: 'dataset' }],
    ['folder type', { name: 'a', type: 'folder' }, { type: 'folder' }],
    ['empty parentId', { name: 'a', parentId: '' }, { parentId: null }],
    ['null parentId', { name: 'a', parentId: null }, { parentId: null }],
    [
      'uppercase parentId',
      { name: 'a', parentId: 'ABCDEF0123456789ABCDEF01' },
      { parentId: 'abcdef0123456789abcdef01' },
    ],
    ['null intro', { name: 'a', intro: null }, { intro: '' }],
    ['blank avatar', { name: 'a', avatar: '' }, { avatar: undefined }],
    ['given avatar', { name: 'a', avatar: '/a.png' }, { avatar: '/a.png' }],
    ['blank model', { name: 'a', vectorModel: '  ' }, { vectorModel: undefined }],
    ['null model', { name: 'a', agentModel: null }, { agentModel: undefined }],
    ['padded model', { name: 'a', vlmModel: ' gpt-4o ' }, { vlmModel: 'gpt-4o' }],
  ])('accepts a body with %s', (_case, body, expected) => {
    const parsed = createDatasetBodySchema.parse(body);

    expect(parsed).toMatchObject(expected);
  });

  it('counts characters, not UTF-16 units, against the name limit', () => {
    const parsed = createDatasetBodySchema.parse({ name: '😀'.repeat(100), intro: '😀'.repeat(2000) });

    expect([...parsed.name]).toHaveLength(100);
  });

  it.each([
    ['name', { name: 'a\ud800b' }],
    ['intro', { name: 'ok', intro: '\udc00' }],
    ['avatar', { name: 'ok', avatar: 'x\ud83d' }],
    ['vectorModel', { name: 'ok', vectorModel: '\ud800' }],
  ])('rejects a lone surrogate in %s as invalidParams (DynamoDB cannot store it)', (field, body) => {
    const error = errorFor(body);

    expect(error).toMatchObject({ httpStatus: 400, code: 507000, statusText: 'invalidParams' });
    expect(error.message).toBe(`${field} must be valid Unicode text`);
  });

  it.each([
    ['missing', {}],
    ['null', { name: null }],
    ['empty', { name: '' }],
    ['blank', { name: ' \t\n ' }],
  ])('maps a %s name to missingParams', (_case, body) => {
    const error = errorFor(body);

    expect(error).toMatchObject({ httpStatus: 400, code: 507004, statusText: 'missingParams' });
    expect(error.message).toBe('name is required');
  });

  it('reports a missing name before other problems', () => {
    const error = errorFor({ intro: 5, type: 'x' });

    expect(error.code).toBe(507004);
  });

  it.each([
    ['a non-string name', { name: 5 }, 'name must be a string'],
    ['a name over 100 characters', { name: 'a'.repeat(101) }, 'name must be at most 100 characters'],
    ['a control character in the name', { name: 'a\u0000b' }, 'name must not contain control characters'],
    ['an inner newline in the name', { name: 'a\nb' }, 'name must not contain control characters'],
    ['an unknown type', { name: 'a', type: 'collection' }, 'type must be "dataset" or "folder"'],
    ['a non-string type', { name: 'a', type: 1 }, 'type must be "dataset" or "folder"'],
    ['a short parentId', { name: 'a', parentId: 'abc' }, 'parentId must be a 24-character hex id'],
    ['a non-hex parentId', { name: 'a', parentId: 'g'.repeat(24) }, 'parentId must be a 24-character hex id'],
    ['a numeric parentId', { name: 'a', parentId: 1 }, 'parentId must be a string or null'],
    ['an intro over 2000 characters', { name: 'a', intro: 'x'.repeat(2001) }, 'intro must be at most 2000 characters'],
    ['a non-string intro', { name: 'a', intro: ['x'] }, 'intro must be a string'],
    [
      'an avatar over 1024 characters',
      { name: 'a', avatar: 'x'.repeat(1025) },
      'avatar must be at most 1024 characters',
    ],
    ['a non-string model', { name: 'a', vectorModel: 3 }, 'vectorModel must be a string'],
    ['an array body', [], 'The body must be a JSON object'],
    ['a null body', null, 'The body must be a JSON object'],
  ])('maps %s to invalidParams naming the field', (_case, body, message) => {
    const error = errorFor(body);

    expect(error).toBeInstanceOf(DatasetApiError);
    expect(error).toMatchObject({ httpStatus: 400, code: 507000, statusText: 'invalidParams', message });
  });

  it('never echoes a value from the body in its message', () => {
    const secret = 'kb-secret-value-that-must-not-leak';

    const messages = [
      errorFor({ name: secret, type: secret }),
      errorFor({ name: secret, parentId: secret }),
      errorFor({ name: `${secret}\u0001` }),
      errorFor({ name: 'a', intro: secret.repeat(100) }),
    ].map((e) => e.message);

    for (const message of messages) expect(message).not.toContain(secret);
  });
});
