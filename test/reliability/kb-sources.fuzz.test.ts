import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FUZZ_RUNS, FUZZ_SEED, fuzzThrough, type RawRequest, sampleFuzz } from './harness.ts';
import { datasetReplyProblems, useFuzzServer } from './route-fuzz.ts';

/*
 * The source calls under malformed requests through the local server: JSON bodies for link and read, multipart
 * forms (broken boundaries, odd part headers, cut bodies, random bytes under every supported name) for the upload,
 * and any query for the signed link. Every answer is below 500, in FastGPT's envelope, and never echoes the token.
 */

const FIELDS = [
  'datasetId',
  'parentId',
  'link',
  'collectionId',
  'chunkSize',
  'chunkSplitter',
  'trainingType',
  'metadata',
  'fileId',
  'filename',
  // file/getPreviewChunks
  'type',
  'sourceId',
  'selector',
  'previewLimit',
];
const UNKNOWN = 'ffffffffffffffffffffffff';

const ROUTES = [
  ['POST /api/core/dataset/collection/create/link', () => jsonRequests('/api/core/dataset/collection/create/link')],
  ['POST /api/core/dataset/collection/read', () => jsonRequests('/api/core/dataset/collection/read')],
  ['POST /api/core/dataset/collection/sync', () => jsonRequests('/api/core/dataset/collection/sync')],
  ['POST /api/core/dataset/collection/create/localFile (multipart)', () => multipartRequests('localFile')],
  ['POST /api/core/dataset/collection/create/backup (multipart)', () => multipartRequests('backup')],
  ['POST /api/core/dataset/collection/create/template (multipart)', () => multipartRequests('template')],
  ['POST /api/core/dataset/collection/create/fileId', () => jsonRequests('/api/core/dataset/collection/create/fileId')],
  [
    'POST /api/core/dataset/file/presignDatasetFilePostUrl',
    () => jsonRequests('/api/core/dataset/file/presignDatasetFilePostUrl'),
  ],
  ['POST /api/core/dataset/file/getPreviewChunks', () => jsonRequests('/api/core/dataset/file/getPreviewChunks')],
  ['GET /api/core/dataset/collection/source', sourceRequests],
] as const;
// FUZZ_RUNS requests in all, shared by the routes.
const RUNS_PER_ROUTE = Math.max(20, Math.ceil(FUZZ_RUNS / ROUTES.length));

const { server, token, datasetRequests } = useFuzzServer();
const problems = datasetReplyProblems(token);

const values = fc.oneof(
  fc.constantFrom(
    UNKNOWN,
    '',
    null,
    'https://example.com/a',
    'http://169.254.169.254/',
    'file:///etc/passwd',
    'javascript:alert(1)',
    'http://[::ffff:127.0.0.1]/',
    'qa',
    'chunk',
    'fileLocal',
    'link',
    'reTraining',
    'apiFile',
    'dataset/ffffffffffffffffffffffff/ffffffffffffffffffffffff',
    '../../etc/passwd.md',
    'a.pdf',
    '\ud800',
  ),
  fc.integer(),
  fc.string({ maxLength: 40 }),
  fc.object({ maxDepth: 1, maxKeys: 2 }),
);
const objects = fc.record(Object.fromEntries(FIELDS.map((f) => [f, values])), { requiredKeys: [] });

function jsonRequests(path: string): RawRequest[] {
  return datasetRequests({ path }, { objects, fields: FIELDS }, RUNS_PER_ROUTE);
}

/** Forms as clients (and broken clients) send them, to one of the upload calls. */
function multipartRequests(call: 'localFile' | 'backup' | 'template'): RawRequest[] {
  const part = fc.record({
    name: fc.constantFrom('file', 'data', 'files', '', 'file"; x="1'),
    filename: fc.option(
      fc.constantFrom('a.txt', 'a.pdf', 'a.docx', 'a.csv', 'a.html', 'a.md', '../../etc/x.txt', '报告.pdf', '', 'a'),
    ),
    type: fc.option(fc.constantFrom('text/plain', 'application/pdf', 'application/octet-stream', 'text/html', '')),
    body: fc.oneof(
      fc.constant(JSON.stringify({ datasetId: UNKNOWN })),
      fc.json({ maxDepth: 2 }),
      fc.constantFrom(
        '%PDF-1.4 trailer',
        'PK\u0003\u0004',
        '<p>x</p>',
        'a,b\n1,2',
        'q,a,indexes\n"x",,"y',
        'index,q\n,',
      ),
      fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b).toString('latin1')),
    ),
  });
  const form = fc.record({
    boundary: fc.constantFrom('b0undary', 'x'.repeat(70), '-', 'a b'),
    declared: fc.constantFrom('same', 'other', 'none', 'quoted'),
    parts: fc.array(part, { maxLength: 4 }),
    cut: fc.option(fc.nat({ max: 400 })),
  });
  return sampleFuzz(form, RUNS_PER_ROUTE, 1).map(({ boundary, declared, parts, cut }) => {
    const lines: string[] = [];
    for (const p of parts) {
      lines.push(`--${boundary}`);
      lines.push(
        `Content-Disposition: form-data; name="${p.name}"${p.filename !== null ? `; filename="${p.filename}"` : ''}`,
      );
      if (p.type !== null) lines.push(`Content-Type: ${p.type}`);
      lines.push('', p.body);
    }
    lines.push(`--${boundary}--`, '');
    const body = Buffer.from(lines.join('\r\n'), 'latin1');
    const header =
      declared === 'none'
        ? 'multipart/form-data'
        : `multipart/form-data; boundary=${declared === 'other' ? 'other' : declared === 'quoted' ? `"${boundary}"` : boundary}`;
    return {
      method: 'POST',
      path: `/api/core/dataset/collection/create/${call}`,
      headers: [
        ['Authorization', `Bearer ${token().token}`],
        ['Content-Type', header],
      ],
      body: cut === null ? body : body.subarray(0, cut),
    };
  });
}

function sourceRequests(): RawRequest[] {
  const query = fc.oneof(
    fc.string({ maxLength: 60 }).map((t) => `token=${encodeURIComponent(t)}`),
    fc.constantFrom('token=', 'token=a.b', 'token=a.b.c', `token=${'a'.repeat(2000)}`, 'token=%ZZ', '', 'x=1&token=1'),
  );
  return sampleFuzz(query, RUNS_PER_ROUTE, 2).map((q) => ({
    method: 'GET',
    path: `/api/core/dataset/collection/source?${q}`,
    headers: [],
  }));
}

describe('the source calls under malformed requests (fuzz through the local server)', () => {
  it.each(ROUTES)(
    `%s: every answer below 500, in the envelope, never echoing the token (seed ${FUZZ_SEED})`,
    async (_name, requests) => {
      const { failures, statuses } = await fuzzThrough(server.url, requests(), problems, 8);

      expect(failures.slice(0, 5)).toEqual([]);
      // The mix reaches the function: some requests fail its validation or find nothing.
      expect(statuses.some((s) => s === 400 || s === 403 || s === 404)).toBe(true);
    },
    120_000,
  );
});
