/**
 * The knowledge-base API's contracts of its source calls: link and file collections, and reading a collection's source
 * (docs/knowledge-base-sources.md). Bodies and answers are FastGPT's (projects/app/src/pages/api/core/dataset/
 * collection/create/{link,localFile}.ts and collection/read.ts, read at v4.11–v4.16).
 */

import * as z from 'zod';
import { readCollectionBodySchema, sourceQuerySchema } from '#functions/kb-read-collection/kb-read-collection';
import { datasetErrorBodySchema, datasetSuccessBodySchema } from '#shared/envelopes/dataset';
import {
  createBackupDataSchema,
  createFileDataSchema,
  createFileIdBodySchema,
  createLinkBodySchema,
  createTemplateDataSchema,
  MAX_PREVIEW_CHUNKS,
  presignUploadBodySchema,
  previewChunksBodySchema,
} from '#shared/kb/sources/settings';
import { collectionIdSchema } from '#shared/schemas/kb-content';
import { datasetErrors, type ResponseContract, type TopicContracts } from './contract-parts.ts';

const COLLECTION_ID = '6740a1f2c3d4e5f6a7b8c9d1';
const DATASET_ID = '6740a1f2c3d4e5f6a7b8c9d0';

const created = datasetSuccessBodySchema(
  z.object({
    collectionId: z.string().meta({ description: 'The new collection' }),
    results: z.object({
      insertLen: z.int().meta({ description: 'Always 0: the source is read, chunked and embedded after the answer' }),
    }),
  }),
);
const createdExample = {
  code: 200,
  statusText: '',
  message: '',
  data: { collectionId: COLLECTION_ID, results: { insertLen: 0 } },
};

const own = (status: number, code: number, statusText: string, description: string): ResponseContract => ({
  status,
  description: `\`${statusText}\` (code ${code}): ${description}`,
  body: datasetErrorBodySchema({ code, statusText }),
});
const unExistCollection = own(404, 501003, 'unExistCollection', "the collection does not exist in the caller's team");

const FILE_TYPES = [
  'text/plain',
  'text/markdown',
  'text/html',
  'text/csv',
  'application/pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
];

const uploadSchema = z.object({
  file: z.string().meta({
    description: 'The file: .txt, .md, .html, .csv, .pdf or .docx, at most 10 MB',
    contentMediaType: 'application/octet-stream',
  }),
  data: z.string().meta({
    description: `JSON of the collection's settings: ${Object.keys(createFileDataSchema.shape).join(', ')}`,
  }),
});

const backupSchema = z.object({
  file: z.string().meta({
    description:
      'The backup: a .csv of at most 10 MB, a header row (`q`, `a`, `index` columns, or the older `q,a,indexes`), then a row for each chunk',
    contentMediaType: 'application/octet-stream',
  }),
  data: z.string().meta({
    description: `JSON: ${Object.keys(createBackupDataSchema.shape).join(', ')}`,
  }),
});

const templateSchema = z.object({
  file: z.string().meta({
    description:
      'The filled-in import template: a .csv of at most 10 MB, a header row (`q`, `a`, `index` columns, or the older `q,a,indexes`), then a row for each chunk',
    contentMediaType: 'application/octet-stream',
  }),
  data: z.string().meta({
    description: `JSON: ${Object.keys(createTemplateDataSchema.shape).join(', ')}`,
  }),
});

const UPLOAD_KEY = `dataset/${DATASET_ID}/${COLLECTION_ID}`;
const presigned = datasetSuccessBodySchema(
  z.object({
    url: z.string().meta({
      description:
        'Where to PUT the file, valid for 10 minutes: a presigned S3 address deployed, the local server under npm start',
    }),
    key: z.string().meta({ description: "The upload's key: `fileId` of create/fileId, `sourceId` of the preview" }),
    headers: z.record(z.string(), z.string()).meta({ description: 'Headers the PUT must send, exactly as given' }),
    maxSize: z.int().meta({ description: 'The most bytes a file may hold (10 MB)' }),
  }),
);
const presignContract = (operationId: string, note: string) => ({
  operationId,
  summary: 'An address to upload a file to, before its collection is made',
  description: `FastGPT's web client's first step of a file import (v4.14 and later${note}): for a knowledge base of the caller's team and a file name of a type the product reads (.txt, .md, .html, .csv, .pdf, .docx), an address to PUT the file to with the answered headers, and the key that names it afterwards (collection/create/fileId). The file is checked when the collection is made, as a localFile upload is; an upload not made a collection is dropped after a day.`,
  request: { body: presignUploadBodySchema },
  success: {
    status: 200,
    description: 'The address, the key and the headers',
    body: presigned,
    example: {
      code: 200,
      statusText: '',
      message: '',
      data: {
        url: 'https://bucket.s3.eu-west-1.amazonaws.com/uploads/…?X-Amz-Algorithm=AWS4-HMAC-SHA256&…',
        key: UPLOAD_KEY,
        headers: { 'content-type': 'text/markdown; charset=utf-8' },
        maxSize: 10485760,
      },
    },
  },
  errors: datasetErrors('invalidParams', 'missingParams', 'unExistDataset', 'unauthorized', 'unAuthApiKey'),
});

const previewed = datasetSuccessBodySchema(
  z.object({
    chunks: z
      .array(z.object({ q: z.string(), a: z.string().meta({ description: "A backup's answer column; else empty" }) }))
      .meta({ description: `The first chunks: 10, or \`previewLimit\` (at most ${MAX_PREVIEW_CHUNKS})` }),
    total: z.int().meta({ description: 'How many chunks the source makes' }),
  }),
);

/** The errors of a call naming an upload by its key (create/fileId, the preview's fileLocal). */
const uploadKeyErrors = datasetErrors(
  'invalidParams',
  'missingParams',
  'unExistDataset',
  'fileNotFound',
  'unauthorized',
  'unAuthApiKey',
);

export const KB_SOURCE_CONTRACTS: TopicContracts = {
  dataset: {
    'POST /api/core/dataset/file/getPreviewChunks': {
      operationId: 'previewSourceChunks',
      summary: "A source's first chunks, cut as its training will cut them",
      description:
        "FastGPT's file/getPreviewChunks, the import page's preview step: reads a source and answers its first chunks and their count, nothing stored. `type` says what `sourceId` names: `fileLocal` an upload's key (presignDatasetFilePostUrl's `key`, an upload of this knowledge base in the caller's team), `link` a page (fetched under the link rules, `selector` keeping the matching elements), `reTraining` one of the caller's collections of this knowledge base read again with the body's settings over its own. The split and settings are the training's (`chunkSize` default 1,000, `chunkSplitter`, 20% overlap for `chunk`, none for `qa`); FastGPT's `overlapRatio` and other chunk fields are ignored. `externalFile` and `apiFile` are not served (400). The reader's limits apply: 10 MB a file, 5 MB and 15 s a page, 20 s a PDF or DOCX.",
      request: {
        body: previewChunksBodySchema,
        bodyExample: { datasetId: DATASET_ID, type: 'fileLocal', sourceId: UPLOAD_KEY, chunkSize: 500 },
      },
      success: {
        status: 200,
        description: 'The first chunks and how many there are',
        body: previewed,
        example: {
          code: 200,
          statusText: '',
          message: '',
          data: { chunks: [{ q: '# Refunds\n\nRefunds are paid within 5 working days.', a: '' }], total: 12 },
        },
      },
      errors: [
        ...uploadKeyErrors,
        unExistCollection,
        own(413, 507000, 'invalidParams', 'the uploaded file is larger than 10 MB'),
      ],
    },
    'POST /api/core/dataset/presignDatasetFilePostUrl': presignContract('presignDatasetFileUpload', ', at this path'),
    'POST /api/core/dataset/file/presignDatasetFilePostUrl': presignContract(
      'presignDatasetFileUploadV2',
      ', under file/ in its later versions',
    ),
    'POST /api/core/dataset/collection/create/fileId': {
      operationId: 'createFileIdCollection',
      summary: 'Create a collection from a file uploaded to a presigned address',
      description:
        "FastGPT's create/fileId: `fileId` is the key presignDatasetFilePostUrl answered, with `datasetId`, `parentId` and the chunk settings of every create. The upload is checked as a localFile upload is (at most 10 MB, a type the product reads, content that matches its name), stored as the collection's file and removed; reading, chunking and embedding follow the answer. A key that is not an upload of this knowledge base in the caller's team (or was already used) is 404 `fileNotFound`.",
      request: { body: createFileIdBodySchema },
      success: { status: 200, description: 'Created; reading queued', body: created, example: createdExample },
      errors: [...uploadKeyErrors, own(413, 507000, 'invalidParams', 'the uploaded file is larger than 10 MB')],
    },
    'POST /api/core/dataset/collection/create/link': {
      operationId: 'createLinkCollection',
      summary: 'Create a collection from a web page',
      description:
        'Stores a link collection named after its link (or `name`) and answers at once; the page is fetched and trained afterwards, under the link rules: `http`/`https` only, no link-local, metadata or loopback address unless LINK_ALLOWED_HOSTS lists it, at most 5 redirects each checked again, 5 MB and 15 s. `metadata.webPageSelector` keeps only the matching elements of the page. A failed fetch shows on the collection.',
      request: {
        body: createLinkBodySchema,
        bodyExample: { datasetId: DATASET_ID, link: 'https://example.com/docs/refunds', trainingType: 'chunk' },
      },
      success: { status: 200, description: 'Created; reading queued', body: created, example: createdExample },
      errors: [...datasetErrors('invalidParams', 'missingParams', 'unExistDataset', 'unauthorized', 'unAuthApiKey')],
    },
    'POST /api/core/dataset/collection/create/localFile': {
      operationId: 'createLocalFileCollection',
      summary: 'Create a collection from an uploaded file',
      description:
        "`multipart/form-data` with a `file` and `data` (JSON of the collection's settings, as create/text's). A .txt, .md, .html, .csv, .pdf or .docx file of at most 10 MB, whose content matches its type; it is stored and read, chunked and embedded after the answer. A larger file is 413; a type the product does not read or content that does not match its name is 400.",
      request: { body: uploadSchema, bodyContentType: 'multipart/form-data' },
      success: { status: 200, description: 'Created; reading queued', body: created, example: createdExample },
      errors: [
        ...datasetErrors('invalidParams', 'missingParams', 'unExistDataset', 'unauthorized', 'unAuthApiKey'),
        own(413, 507000, 'invalidParams', 'the file is larger than 10 MB'),
      ],
    },
    'POST /api/core/dataset/collection/create/backup': {
      operationId: 'createBackupCollection',
      summary: 'Import a FastGPT backup: a CSV of chunks and their index texts',
      description:
        'FastGPT\'s backup import. `multipart/form-data` with a `file` (.csv, at most 10 MB, as FastGPT\'s collection/export writes it: each row after the header one chunk, `q`, `a` and its own index texts) and `data` (JSON: `datasetId`, `parentId`, `tags`). The rows are counted in the call and embedded after the answer as they are, never split again; a collection of `trainingType: "backup"` named after the file. A file without a chunk, or not a .csv, is 400 and nothing is stored; a larger file is 413.',
      request: { body: backupSchema, bodyContentType: 'multipart/form-data' },
      success: {
        status: 200,
        description: 'Created; the rows queued for embedding',
        body: datasetSuccessBodySchema(
          z.object({
            collectionId: z.string().meta({ description: 'The new collection' }),
            results: z.object({ insertLen: z.int().meta({ description: 'The chunks (rows) the file holds' }) }),
          }),
        ),
        example: {
          code: 200,
          statusText: '',
          message: '',
          data: { collectionId: COLLECTION_ID, results: { insertLen: 2 } },
        },
      },
      errors: [
        ...datasetErrors('invalidParams', 'missingParams', 'unExistDataset', 'unauthorized', 'unAuthApiKey'),
        own(413, 507000, 'invalidParams', 'the file is larger than 10 MB'),
      ],
    },
    'POST /api/core/dataset/collection/create/template': {
      operationId: 'createTemplateCollection',
      summary: "Import FastGPT's import template: a CSV of chunks and their index texts",
      description:
        "FastGPT's template import. `multipart/form-data` with a `file` (.csv, at most 10 MB, made from FastGPT's import template: each row after the header one chunk, `q`, `a` and its own index texts) and `data` (JSON: `datasetId`, `parentId`, `tags`, `metadata`; chunk settings are ignored, as FastGPT's template mode deletes them). Read as a backup is; a collection of `trainingType: \"template\"` named after the file. Answers `{}`, as FastGPT does. A file without a chunk, or not a .csv, is 400 and nothing is stored; a larger file is 413.",
      request: { body: templateSchema, bodyContentType: 'multipart/form-data' },
      success: {
        status: 200,
        description: 'Created; the rows queued for embedding',
        body: datasetSuccessBodySchema(z.strictObject({})),
        example: { code: 200, statusText: '', message: '', data: {} },
      },
      errors: [
        ...datasetErrors('invalidParams', 'missingParams', 'unExistDataset', 'unauthorized', 'unAuthApiKey'),
        own(413, 507000, 'invalidParams', 'the file is larger than 10 MB'),
      ],
    },
    'POST /api/core/dataset/collection/sync': {
      operationId: 'syncLinkCollection',
      summary: "Read a link collection's page again; train it again when it changed",
      description:
        "FastGPT's sync of a link collection. The page is fetched now, under the link rules of create/link; the same text as the collection was trained from answers `sameRaw` and changes nothing, another text answers `success` and queues the collection's training again with its settings (same id; its chunks stay until the new ones replace them). A page that cannot be read is 400 with why; a collection being trained 429; a collection that is not a link 501001.",
      request: { body: collectionIdSchema, bodyExample: { collectionId: COLLECTION_ID } },
      success: {
        status: 200,
        description: 'What the sync found',
        body: datasetSuccessBodySchema(z.enum(['success', 'sameRaw'])),
        example: { code: 200, statusText: '', message: '', data: 'sameRaw' },
      },
      errors: [
        ...datasetErrors(
          'invalidParams',
          'missingParams',
          'unExistCollection',
          'notSupportSync',
          'tooManyRequests',
          'unauthorized',
          'unAuthApiKey',
        ),
      ],
    },
    'POST /api/core/dataset/collection/read': {
      operationId: 'readCollectionSource',
      summary: "A time-limited link to a collection's source",
      description:
        'FastGPT\'s `{type: "url", value}`: a link to this API that works for 30 minutes without a token and serves the stored file (or the text kept as a file) or redirects to a link collection\'s page; `value` is "" for a collection without a source.',
      request: { body: readCollectionBodySchema, bodyExample: { collectionId: COLLECTION_ID } },
      success: {
        status: 200,
        description: 'The link',
        body: datasetSuccessBodySchema(z.object({ type: z.literal('url'), value: z.string() })),
      },
      errors: [...datasetErrors('invalidParams', 'missingParams', 'unauthorized', 'unAuthApiKey'), unExistCollection],
    },
    'GET /api/core/dataset/collection/source': {
      operationId: 'serveCollectionSource',
      summary: 'The source a read link points to (no authorizer: the signed token is the proof)',
      description:
        "Redirects to a link collection's page or, deployed, to a short-lived link of the source bucket; `npm start` serves the file itself. Files are served inline, sandboxed and never cached.",
      request: { query: sourceQuerySchema },
      success: { status: 200, description: 'The file', body: z.string(), contentTypes: FILE_TYPES },
      errors: [
        {
          status: 302,
          description: 'Redirect to the page or to the bucket',
          body: z.string(),
          contentType: 'text/plain',
        },
        ...datasetErrors('invalidParams'),
        own(403, 501006, 'unAuthDatasetFile', 'the token is missing, not valid, or expired'),
        unExistCollection,
      ],
    },
  },
};
