/**
 * The contract of every route of shared/routes.ts, keyed by API and `METHOD path`: the zod schemas
 * of its request, its success body, and the errors its function answers. The OpenAPI documents are
 * generated from this (openapi/document.ts) and the tests check every HTTP response against them.
 * The schemas are the ones the handlers validate with and the envelopes build with: never a copy.
 */

import * as z from 'zod';
import { batchDeleteBodySchema } from '#functions/batch-delete-channels/batch-delete-channels';
import { createDatasetBodySchema } from '#functions/create-dataset/schema';
import { createDatasetFolderBodySchema } from '#functions/create-dataset-folder/schema';
import { pathsQuerySchema } from '#functions/dataset-paths/schema';
import { importBodySchema, importRowsBodySchema } from '#functions/import-legacygw/schema';
import { listQuerySchema } from '#functions/list-channels/list-channels';
import { listDatasetsBodySchema, listDatasetsQuerySchema } from '#functions/list-datasets/schema';
import { updateChannelBodySchema } from '#functions/update-channel/update-channel';
import { updateDatasetBodySchema } from '#functions/update-dataset/schema';
import { usageQuerySchema } from '#functions/usage/schema';
import { datasetErrorKindBodySchema, datasetSuccessBodySchema } from '#shared/envelopes/dataset';
import { proxyErrorBodySchema, proxySuccessBodySchema } from '#shared/envelopes/proxy';
import { DATASET_ERROR_KINDS, type DatasetErrorKind } from '#shared/errors';
import { keyCreateBodySchema, keyIdSchema, keyUpdateBodySchema } from '#shared/key-view';
import type { ApiName } from '#shared/routes';
import { APIS, type ApiDef, type RouteDef } from '#shared/routes';
import {
  batchDeleteResultSchema,
  channelIdSchema,
  channelPageSchema,
  channelTestResultSchema,
  channelViewSchema,
} from '#shared/schemas/channels';
import { idQuerySchema } from '#shared/schemas/dataset-fields';
import { datasetIdSchema, detailSchema, listItemSchema, pathEntrySchema } from '#shared/schemas/datasets';
import { importReportSchema } from '#shared/schemas/import-report';
import { keyViewSchema } from '#shared/schemas/keys';
import { openApiDocumentSchema } from '#shared/schemas/openapi';
import {
  anthropicErrorBodySchema,
  chatCompletionRequestSchema,
  chatCompletionSchema,
  embeddingListSchema,
  embeddingsRequestSchema,
  eventStreamSchema,
  messageSchema,
  messagesRequestSchema,
  modelListSchema,
  relayErrorBodySchema,
  responseSchema,
  responsesRequestSchema,
  upstreamErrorBodySchema,
} from '#shared/schemas/relay';
import { usageReportSchema } from '#shared/schemas/usage';
import { KB_CONTENT_CONTRACTS } from './contracts-kb-content.ts';

/** One response a route may give: its status, what it means and the zod schema of its body. */
export interface ResponseContract {
  /** `default`: any status the route does not list (OpenAPI's `default` response; the relay's upstream errors). */
  readonly status: number | 'default';
  readonly description: string;
  readonly body: z.core.$ZodType;
  /** Default `application/json`. */
  readonly contentType?: string;
  /** Several media types with the same body schema (instead of `contentType`): a route that serves files. */
  readonly contentTypes?: readonly string[];
  readonly example?: unknown;
}

export interface RouteContract {
  /** Unique within the API; the name client generators give the call. */
  readonly operationId: string;
  readonly summary: string;
  readonly description?: string;
  readonly request?: {
    /** The JSON body, as the handler parses it (input side of the schema). */
    readonly body?: z.core.$ZodType;
    readonly bodyExample?: unknown;
    /** One query parameter per property. */
    readonly query?: z.core.$ZodObject;
    /** One path parameter per property (the route's `{name}` segments). */
    readonly path?: z.core.$ZodObject;
  };
  readonly success: ResponseContract;
  /** The success as server-sent events too (the relay's `stream: true`): the same status, another media type. */
  readonly stream?: ResponseContract;
  /** Errors the function answers itself; the gateway's own (401, 413, 429, 5xx) are added from shared/gateway-responses.ts. */
  readonly errors: readonly ResponseContract[];
}

/** The key of a route in ROUTE_CONTRACTS. */
export const routeKey = (route: Pick<RouteDef, 'method' | 'path'>) => `${route.method} ${route.path}`;

const datasetError = (kind: DatasetErrorKind): ResponseContract => {
  const { httpStatus, code, statusText, when } = DATASET_ERROR_KINDS[kind];
  return {
    status: httpStatus,
    description: `\`${statusText}\` (code ${code}): ${when}`,
    body: datasetErrorKindBodySchema(kind),
  };
};
const datasetErrors = (...kinds: DatasetErrorKind[]): ResponseContract[] => kinds.map(datasetError);
/** A relay key as every read shows it (shared/schemas/keys.ts). */
const KEY_EXAMPLE = {
  id: '5f0c2a9e1b7d4c3a8e6f2b10',
  key: 'sk-…5f0c2a9e1b7d4c3a8e6f2b10',
  name: 'billing-service',
  status: 'enabled',
  expired: false,
  groups: ['default'],
  models: ['gpt-4o'],
  ips: null,
  expiresAt: null,
  unlimitedQuota: false,
  remainQuota: 500000,
  usedQuota: 0,
  createdAt: '2026-11-27T10:00:00.000Z',
  lastUsedAt: '2026-11-27T10:05:00.000Z',
  editedAt: null,
  usage: '/api/usage?keyId=5f0c2a9e1b7d4c3a8e6f2b10',
} as const;

const proxyError = (status: number, description: string): ResponseContract => ({
  status,
  description,
  body: proxyErrorBodySchema,
});

const relayError = (status: number, description: string): ResponseContract => ({
  status,
  description,
  body: relayErrorBodySchema,
});
const upstreamError = (status: number | 'default', description: string): ResponseContract => ({
  status,
  description,
  body: upstreamErrorBodySchema,
});
/**
 * The errors of a `/v1` route that goes to a channel: the relay's own, and the upstream's passed on with its status
 * (after the channel's `statusCodeMapping`), for the listed statuses and any other (`default`).
 */
const RELAY_CHANNEL_ERRORS: readonly ResponseContract[] = [
  relayError(400, 'No `model`, a body that is not JSON, or not a JSON object'),
  relayError(401, 'The relay key has expired (the gateway may have cached its Allow)'),
  relayError(
    403,
    'The key may not use this model (`model_not_allowed`) or may not be used from this address (`ip_not_allowed`)',
  ),
  relayError(404, 'Not a route of the relay'),
  relayError(413, 'The body is over 10 MiB'),
  relayError(500, 'Unexpected error; the message is generic'),
  relayError(
    502,
    'The upstream answered something that is not its protocol (not JSON, or JSON to a stream request); `code` is `upstream_502`',
  ),
  relayError(
    503,
    "No channel can serve the model for the key's groups (`no_channel_none`, `no_channel_all_disabled`, `no_channel_none_servable`), every one is failing or cooling down (`all_channels_failing`), or the channels could not be read (`channels_unavailable`)",
  ),
  ...[400, 401, 403, 404, 413, 429, 500, 502, 503, 504].map((status) =>
    upstreamError(status, `The upstream's ${status}, passed on`),
  ),
  upstreamError(
    'default',
    "An upstream's error passed on with its status (or the status the channel's `statusCodeMapping` gives it): in OpenAI's envelope as the upstream wrote it, or the relay's envelope around its text (`type` `upstream_error`, `code` `upstream_<status>`)",
  ),
];

const openApiContract = (operationId: string, description: string): RouteContract => ({
  operationId,
  summary: 'This OpenAPI 3.1 document (no authorization)',
  description: `${description} The served copy names the host it was fetched from in \`servers\`.`,
  success: { status: 200, description: 'The OpenAPI document of this API', body: openApiDocumentSchema },
  errors: [],
});

/** A channel as the review calls show it, for the examples. */
const CHANNEL_EXAMPLE = {
  id: '0b4c2f7e9a1d3c5b7e9f0a2c4e6b8d0f1a3c5e7b9d1f3a5c7e9b1d3f5a7c9e1b',
  provider: 'openai',
  legacyType: 1,
  name: 'openai-main',
  baseUrl: 'https://api.openai.com',
  models: ['gpt-4o', 'gpt-4o-mini'],
  key: 'sk-\u2026a3f9',
  status: 'enabled',
  source: { legacyId: 1, host: '10.0.3.15', database: 'legacygw' },
  createdAt: '2026-03-01T10:00:00.000Z',
  updatedAt: '2026-03-01T10:00:00.000Z',
  editedAt: null,
  servable: true,
  settings: {
    modelMapping: { 'gpt-4': 'gpt-4o' },
    priority: 10,
    groups: ['default', 'vip'],
    headerOverride: { 'X-Api-Key': 'sk-\u2026c7d2', 'X-Team': 'platform' },
  },
} as const;

const LIST_DESCRIPTION =
  'Without `parentId`, every record of the team, flat; `parentId` null or "" lists the root, an id that folder. Newest `updateTime` first, at most 1,000 (a list of the whole team reads its 10,000 most recently created records at most). `type` is one type or an array of types. With a `searchKey`, the team\'s records whose name or intro holds it (case-insensitive), whatever their folder and type; a search reads the team\'s 10,000 most recently created records at most.';

/** The update's contract; FastGPT takes update with any method, so it is served on PUT and on POST. */
const updateContract = (operationId: string, method: string): RouteContract => ({
  operationId,
  summary: `Rename, edit or move a knowledge base or folder (${method})`,
  description:
    'Changes only the fields it names and bumps `updateTime`. A `name` given as null or "" leaves the name as it is; `vectorModel` is ignored (it never changes) and `type` never changes; `agentModelId`/`vlmModelId` are read as the fields without `Id`. A folder never moves into its own subtree, and no record sits deeper than 100 levels. Moves into folders run one at a time per team: a move that waits too long, or a record moved by another request meanwhile, answers 429 (send it again).',
  request: { body: updateDatasetBodySchema, bodyExample: { id: '6740a1f2c3d4e5f6a7b8c9d0', name: 'Renamed' } },
  success: { status: 200, description: 'Updated', body: datasetSuccessBodySchema(z.null()) },
  errors: datasetErrors(
    'invalidParams',
    'missingParams',
    'invalidModel',
    'unExistDataset',
    'tooManyRequests',
    'unauthorized',
    'unAuthApiKey',
  ),
});

export const ROUTE_CONTRACTS: Readonly<Record<ApiName, Readonly<Record<string, RouteContract>>>> = {
  dataset: {
    ...KB_CONTENT_CONTRACTS,
    'POST /api/core/dataset/create': {
      operationId: 'createDataset',
      summary: 'Create a knowledge base or folder',
      description:
        "Creates a knowledge base (`type: dataset`, the default) or a folder for the caller's team, at the root or in a folder of the same team. A model name the catalogue does not know is stored as sent (the default model's item is shown for it) unless the deployment's model policy is strict (then 400/501010). `vectorModelId`, `agentModelId` and `vlmModelId` are read as the fields without `Id`. Unknown fields are ignored.",
      request: {
        body: createDatasetBodySchema,
        bodyExample: { name: 'Product docs', intro: 'Manuals and FAQs' },
      },
      success: {
        status: 200,
        description: 'Created; `data` is the new id',
        body: datasetSuccessBodySchema(datasetIdSchema),
        example: { code: 200, statusText: '', message: '', data: '6740a1f2c3d4e5f6a7b8c9d0' },
      },
      errors: [
        datasetError('invalidParams'),
        datasetError('missingParams'),
        datasetError('invalidModel'),
        datasetError('unExistDataset'),
        datasetError('unauthorized'),
        datasetError('unAuthApiKey'),
      ],
    },
    'POST /api/core/dataset/folder/create': {
      operationId: 'createDatasetFolder',
      summary: 'Create a folder',
      description:
        "FastGPT's web client's folder call: creates a folder as `create` does with `type: folder`. Other fields (an `avatar` too, as in FastGPT) are ignored. FastGPT answers `data: {}`; this answers the new id.",
      request: {
        body: createDatasetFolderBodySchema,
        bodyExample: { parentId: null, name: 'Manuals', intro: '' },
      },
      success: {
        status: 200,
        description: 'Created; `data` is the new folder id',
        body: datasetSuccessBodySchema(datasetIdSchema),
        example: { code: 200, statusText: '', message: '', data: '6740a1f2c3d4e5f6a7b8c9d0' },
      },
      errors: datasetErrors('invalidParams', 'missingParams', 'unExistDataset', 'unauthorized', 'unAuthApiKey'),
    },
    'POST /api/core/dataset/list': {
      operationId: 'listDatasets',
      summary: 'List a folder or the whole team, or search the team',
      description: LIST_DESCRIPTION,
      request: { body: listDatasetsBodySchema, bodyExample: { parentId: null, type: 'dataset', searchKey: '' } },
      success: {
        status: 200,
        description: 'The list items',
        body: datasetSuccessBodySchema(z.array(listItemSchema)),
      },
      errors: datasetErrors('invalidParams', 'unExistDataset', 'unauthorized', 'unAuthApiKey'),
    },
    'GET /api/core/dataset/list': {
      operationId: 'listDatasetsByQuery',
      summary: 'The list call, with its fields in the query',
      description: `For older FastGPT scripts: the query's \`parentId\`, \`type\` (one value) and \`searchKey\` are read like the POST's body. ${LIST_DESCRIPTION}`,
      request: { query: listDatasetsQuerySchema },
      success: {
        status: 200,
        description: 'The list items',
        body: datasetSuccessBodySchema(z.array(listItemSchema)),
      },
      errors: datasetErrors('invalidParams', 'unExistDataset', 'unauthorized', 'unAuthApiKey'),
    },
    'GET /api/core/dataset/detail': {
      operationId: 'getDataset',
      summary: 'One knowledge base or folder',
      description:
        "The record with its model items (a folder's are those of FastGPT's folder defaults), the caller's `permission` and `status: active`.",
      request: { query: idQuerySchema },
      success: { status: 200, description: 'The record', body: datasetSuccessBodySchema(detailSchema) },
      errors: datasetErrors('invalidParams', 'missingParams', 'unExistDataset', 'unauthorized', 'unAuthApiKey'),
    },
    'PUT /api/core/dataset/update': updateContract('updateDataset', 'PUT'),
    'POST /api/core/dataset/update': updateContract('updateDatasetByPost', 'POST, as FastGPT clients send it'),
    'DELETE /api/core/dataset/delete': {
      operationId: 'deleteDataset',
      summary: 'Delete a knowledge base, or a folder with its whole subtree',
      description:
        "Safe to repeat after any failure: a repeat deletes what is left. A folder's delete waits for the team's moves into folders (and they for it): one that waits too long answers 429 (send it again).",
      request: { query: idQuerySchema },
      success: { status: 200, description: 'Deleted', body: datasetSuccessBodySchema(z.null()) },
      errors: datasetErrors(
        'invalidParams',
        'missingParams',
        'unExistDataset',
        'tooManyRequests',
        'unauthorized',
        'unAuthApiKey',
      ),
    },
    'GET /api/core/dataset/paths': {
      operationId: 'getDatasetPaths',
      summary: 'The folders above a record, root first',
      description: '`type=current` includes the record itself; without a `sourceId` the answer is `[]`.',
      request: { query: pathsQuerySchema },
      success: {
        status: 200,
        description: 'The path from the root',
        body: datasetSuccessBodySchema(z.array(pathEntrySchema)),
      },
      errors: datasetErrors('invalidParams', 'unExistDataset', 'unauthorized', 'unAuthApiKey'),
    },
    'GET /openapi.json': openApiContract('getOpenApiDocument', 'Served without a token.'),
  },
  proxy: {
    'POST /api/channels/import/legacygw': {
      operationId: 'importLegacyGateway',
      summary: "Import a legacy gateway's channels",
      description:
        "Reads the `channels` table of a legacy model gateway's MySQL database and imports its base URLs, models and API keys, one channel per key. Idempotent: a re-run creates nothing new. Unknown fields are ignored.",
      request: {
        body: importBodySchema,
        bodyExample: { dsn: 'gateway:s3cret@tcp(127.0.0.1:3306)/legacygw', dryRun: true },
      },
      success: {
        status: 200,
        description: 'The import report (also for a dry run); no key, password or DSN appears in it',
        body: proxySuccessBodySchema(importReportSchema),
        example: {
          success: true,
          data: {
            dryRun: false,
            source: { host: '10.0.3.15', port: 3306, database: 'legacygw', rows: 20, kind: 'oneapi' },
            rows: { imported: 18, skipped: 2 },
            channels: { created: 21, updated: 0, unchanged: 0, edited: 0 },
            items: [
              { legacyId: 2, outcome: 'imported', channels: 1, warnings: ['model mapping not imported'] },
              { legacyId: 17, outcome: 'skipped', reason: 'unknown legacy channel type 999' },
            ],
            itemsTruncated: false,
            routes: {
              total: 95,
              kept: 93,
              changed: 1,
              lost: 1,
              items: [
                { group: 'default', model: 'only-on-fork', legacy: 1, imported: 0 },
                { group: 'vip', model: 'gpt-4o', legacy: 3, imported: 2 },
              ],
              itemsTruncated: false,
              complete: true,
            },
          },
        },
      },
      errors: [
        proxyError(
          400,
          'Invalid body or DSN, a rejected DSN parameter, a refused host, access denied, unknown database, no `channels` table, a table of no known family or of several, too many rows',
        ),
        proxyError(401, 'The admin key is required for this API'),
        proxyError(502, 'The legacy database is unreachable (refused, DNS failure, connect or query timeout)'),
        proxyError(
          504,
          'The deadline passed; the message says how many channels were written, and a re-run completes the import',
        ),
        proxyError(500, 'Storing the channels failed after retries; the message says how many were written'),
      ],
    },
    'POST /api/channels/import/rows': {
      operationId: 'importChannelRows',
      summary: "Import a gateway's channels sent as rows",
      description:
        "Imports a gateway's `channels` table sent as its column names and rows, as the console and `npm run import:sqlite` read it from the gateway's SQLite file: the same families, limits, mapping, identity and report as an import from a database. At most 5,000 rows and 5 MiB a call; a larger table is sent in several calls whose reports the client adds up (docs/channel-import.md, \"Rows sent by a client\"). The report's `source` has no host, port or database. Unknown fields are ignored.",
      request: {
        body: importRowsBodySchema,
        bodyExample: {
          columns: ['id', 'type', 'key', 'status', 'name', 'base_url', 'models', 'group'],
          rows: [
            [1, 1, 'sk-example-key', 1, 'openai-main', '', 'gpt-4o,gpt-4o-mini', 'default'],
            [2, 14, 'sk-ant-example', 2, 'claude', '', 'claude-3-5-sonnet', 'default,vip'],
          ],
          dryRun: true,
        },
      },
      success: {
        status: 200,
        description: 'The import report of this call (also for a dry run); no key appears in it',
        body: proxySuccessBodySchema(importReportSchema),
        example: {
          success: true,
          data: {
            dryRun: true,
            source: { host: '', port: 0, database: '', rows: 2, kind: 'oneapi' },
            rows: { imported: 2, skipped: 0 },
            channels: { created: 2, updated: 0, unchanged: 0, edited: 0 },
            items: [],
            itemsTruncated: false,
            routes: { total: 3, kept: 3, changed: 0, lost: 0, items: [], itemsTruncated: false, complete: true },
          },
        },
      },
      errors: [
        proxyError(
          400,
          'Invalid body (a value that is not text, a number or null, a row of the wrong length, a column named twice), a table without a required column, of no known family or of several',
        ),
        proxyError(401, 'The admin key is required for this API'),
        proxyError(413, 'The body is over 5 MiB or holds more than 5,000 rows: send the table in several calls'),
        proxyError(
          504,
          'The deadline passed; the message says how many channels were written, and sending the same call again completes it',
        ),
        proxyError(500, 'Storing the channels failed after retries; the message says how many were written'),
      ],
    },
    'GET /api/channels': {
      operationId: 'listChannels',
      summary: 'List channels, filtered and paged',
      description:
        'Ordered by provider, name and id. Exact filters and a keyword combine with AND; an empty value means no filter; any other query parameter is 400. `GET /api/channels/` (with the slash) is the same call. Keys are masked.',
      request: { query: listQuerySchema },
      success: {
        status: 200,
        description: 'One page and the number of channels that match; a page past the end is empty',
        body: proxySuccessBodySchema(channelPageSchema),
        example: { success: true, data: { channels: [CHANNEL_EXAMPLE], total: 21 } },
      },
      errors: [
        proxyError(400, 'An unknown or repeated query parameter, or a bad value (the message names it)'),
        proxyError(401, 'The admin key is required for this API'),
      ],
    },
    'POST /api/channels/batch_delete': {
      operationId: 'batchDeleteChannels',
      summary: 'Delete channels',
      description:
        'Deletes every named channel that exists (an id named twice counts once). The next import that maps to a deleted channel creates it again.',
      request: { body: batchDeleteBodySchema, bodyExample: [CHANNEL_EXAMPLE.id] },
      success: {
        status: 200,
        description: '`deleted`: how many of the ids named a channel',
        body: proxySuccessBodySchema(batchDeleteResultSchema),
        example: { success: true, data: { deleted: 1 } },
      },
      errors: [
        proxyError(400, 'Not a JSON array, more than 1,000 ids, or an item that is not a channel id (named)'),
        proxyError(401, 'The admin key is required for this API'),
      ],
    },
    'GET /api/channel/{id}': {
      operationId: 'getChannel',
      summary: 'One channel',
      request: { path: z.object({ id: channelIdSchema }) },
      success: {
        status: 200,
        description: 'The channel, key masked',
        body: proxySuccessBodySchema(channelViewSchema),
        example: { success: true, data: CHANNEL_EXAMPLE },
      },
      errors: [
        proxyError(400, 'The id is not 64 hexadecimal characters'),
        proxyError(401, 'The admin key is required for this API'),
        proxyError(404, 'No channel has this id'),
      ],
    },
    'PUT /api/channel/{id}': {
      operationId: 'updateChannel',
      summary: 'Correct a channel',
      description:
        'Changes the fields named (at least one of name, baseUrl, models, status, key, settings; others are ignored) and stamps `editedAt`, so later imports leave the channel alone. `settings` is partial: each field named replaces the stored one, `null` removes it, the others stay. `key` and the secret parts of `settings` are write-only: their current masked form leaves them unchanged, any other masked-looking value is 400. A change of `status` stamps `statusChangedAt` and removes `statusReason`: `{"status": "enabled"}` re-enables a channel the relay auto-disabled. The id never changes.',
      request: {
        path: z.object({ id: channelIdSchema }),
        body: updateChannelBodySchema,
        bodyExample: {
          status: 'disabled',
          models: ['gpt-4o'],
          settings: { modelMapping: { 'gpt-4': 'gpt-4o' }, weight: 5, tag: null },
        },
      },
      success: {
        status: 200,
        description: 'The channel after the change, key masked',
        body: proxySuccessBodySchema(channelViewSchema),
        example: {
          success: true,
          data: {
            ...CHANNEL_EXAMPLE,
            status: 'disabled',
            models: ['gpt-4o'],
            settings: { ...CHANNEL_EXAMPLE.settings, weight: 5 },
            editedAt: '2026-03-02T09:00:00.000Z',
          },
        },
      },
      errors: [
        proxyError(
          400,
          'A bad id, body or field (the message names it, e.g. `settings.weight`), or `key looks masked`',
        ),
        proxyError(401, 'The admin key is required for this API'),
        proxyError(404, 'No channel has this id'),
        proxyError(409, 'The channel kept changing while it was being updated; read it again and retry'),
      ],
    },
    'DELETE /api/channel/{id}': {
      operationId: 'deleteChannel',
      summary: 'Delete a channel',
      description: 'The next import that maps to it creates it again.',
      request: { path: z.object({ id: channelIdSchema }) },
      success: {
        status: 200,
        description: 'Deleted',
        body: proxySuccessBodySchema(z.null()),
        example: { success: true, data: null },
      },
      errors: [
        proxyError(400, 'The id is not 64 hexadecimal characters'),
        proxyError(401, 'The admin key is required for this API'),
        proxyError(404, 'No channel has this id'),
      ],
    },
    'GET /api/usage': {
      operationId: 'getUsage',
      summary: "The relay's usage over a period: records newest first, totals, per channel and per model",
      description:
        'Reads the usage records of the period (default the last 24 hours, at most 31 days), one UTC day at a time, newest first; `keyId`, `model` (requested or upstream) and `channelId` (answered or attempted) are exact filters that combine with AND. `records` is one page; `total`, `totals`, `byChannel` and `byModel` cover every matching record read. At most 10,000 records are read a call: beyond, `truncated` is true and the figures cover the newest. Any other query parameter is 400.',
      request: { query: usageQuerySchema },
      success: {
        status: 200,
        description: 'The usage of the period',
        body: proxySuccessBodySchema(usageReportSchema),
        example: {
          success: true,
          data: {
            from: '2026-11-26T10:00:00.000Z',
            to: '2026-11-27T10:00:00.000Z',
            records: [
              {
                requestId: 'req-01',
                time: '2026-11-27T09:59:58.120Z',
                keyId: 'key-ops',
                group: 'default',
                endpoint: 'chat',
                requestedModel: 'gpt-4o',
                upstreamModel: 'gpt-4o-2024-08-06',
                channelId: CHANNEL_EXAMPLE.id,
                attempts: [{ channelId: CHANNEL_EXAMPLE.id, status: 200 }],
                status: 200,
                promptTokens: 12,
                completionTokens: 30,
                totalTokens: 42,
                firstByteMs: 310,
                durationMs: 820,
                stream: true,
                clientGone: false,
              },
            ],
            total: 1,
            totals: {
              requests: 1,
              errors: 0,
              failovers: 0,
              promptTokens: 12,
              completionTokens: 30,
              totalTokens: 42,
              unknownUsage: 0,
            },
            byChannel: [
              {
                channelId: CHANNEL_EXAMPLE.id,
                name: CHANNEL_EXAMPLE.name,
                provider: CHANNEL_EXAMPLE.provider,
                requests: 1,
                errors: 0,
                failovers: 0,
                promptTokens: 12,
                completionTokens: 30,
                totalTokens: 42,
                unknownUsage: 0,
                attempts: 1,
                failedAttempts: 0,
              },
            ],
            byModel: [
              {
                model: 'gpt-4o',
                requests: 1,
                errors: 0,
                failovers: 0,
                promptTokens: 12,
                completionTokens: 30,
                totalTokens: 42,
                unknownUsage: 0,
              },
            ],
            truncated: false,
          },
        },
      },
      errors: [
        proxyError(
          400,
          'An unknown or repeated query parameter, a bad value (named), `from` after `to`, or a period over 31 days',
        ),
        proxyError(401, 'The admin key is required for this API'),
      ],
    },
    'GET /api/keys': {
      operationId: 'listKeys',
      summary: 'Every relay key, masked, newest first',
      description:
        "The table holds only each key's keyed hash, so a key reads as `sk-…<id>`. `usage` links the key's usage records (`GET /api/usage?keyId=<id>`).",
      success: {
        status: 200,
        description: 'The relay keys',
        body: proxySuccessBodySchema(z.array(keyViewSchema)),
        example: { success: true, data: [KEY_EXAMPLE] },
      },
      errors: [proxyError(401, 'The admin key is required for this API')],
    },
    'POST /api/keys': {
      operationId: 'createKey',
      summary: 'Create a relay key; the whole key is in this answer only',
      description:
        'Groups default to `["default"]`; no `models`, `ips` or `expiresAt` means no such limit. A key without `remainQuota` is unlimited; with it, it is refused (429) once the remaining quota is not positive. The answer\'s `key` is the whole key (`sk-` and 48 characters), shown this once: the table keeps only its keyed hash, and every later read shows `sk-…<id>`.',
      request: {
        body: keyCreateBodySchema,
        bodyExample: { name: 'billing-service', groups: ['default'], models: ['gpt-4o'], remainQuota: 500000 },
      },
      success: {
        status: 200,
        description: 'The new key, whole, once',
        body: proxySuccessBodySchema(keyViewSchema),
        example: {
          success: true,
          data: { ...KEY_EXAMPLE, key: 'sk-EXAMPLEexampleEXAMPLEexampleEXAMPLEexampleEXAMPLE0', lastUsedAt: null },
        },
      },
      errors: [
        proxyError(400, 'A field is invalid (named), `expiresAt` is past, or a limited quota without `remainQuota`'),
        proxyError(401, 'The admin key is required for this API'),
      ],
    },
    'GET /api/key/{id}': {
      operationId: 'getKey',
      summary: 'One relay key, masked',
      request: { path: z.object({ id: keyIdSchema }) },
      success: {
        status: 200,
        description: 'The key, masked',
        body: proxySuccessBodySchema(keyViewSchema),
        example: { success: true, data: KEY_EXAMPLE },
      },
      errors: [
        proxyError(400, 'The id is not 24 lowercase hexadecimal characters'),
        proxyError(401, 'The admin key is required for this API'),
        proxyError(404, 'No key has this id'),
      ],
    },
    'PUT /api/key/{id}': {
      operationId: 'updateKey',
      summary: 'Change a relay key',
      description:
        "Changes the fields named and stamps `editedAt`, so a later import of legacy tokens leaves the key alone. `null` removes a `models`, `ips` or `expiresAt` limit. Disabling records the reason `revoked`; enabling removes any reason. The key itself never changes (delete it and create another to rotate). A disabled or deleted key stops opening `/v1` within the authorizer cache's lifetime.",
      request: {
        path: z.object({ id: keyIdSchema }),
        body: keyUpdateBodySchema,
        bodyExample: { status: 'disabled', models: null, remainQuota: 100000 },
      },
      success: {
        status: 200,
        description: 'The key after the change, masked',
        body: proxySuccessBodySchema(keyViewSchema),
        example: { success: true, data: { ...KEY_EXAMPLE, editedAt: '2026-11-27T12:00:00.000Z' } },
      },
      errors: [
        proxyError(400, 'The id or a field is invalid (named), or `expiresAt` is past'),
        proxyError(401, 'The admin key is required for this API'),
        proxyError(404, 'No key has this id'),
      ],
    },
    'DELETE /api/key/{id}': {
      operationId: 'deleteKey',
      summary: 'Delete a relay key',
      description: "Its usage records keep its id. It stops opening `/v1` within the authorizer cache's lifetime.",
      request: { path: z.object({ id: keyIdSchema }) },
      success: {
        status: 200,
        description: 'Deleted',
        body: proxySuccessBodySchema(z.null()),
        example: { success: true, data: null },
      },
      errors: [
        proxyError(400, 'The id is not 24 lowercase hexadecimal characters'),
        proxyError(401, 'The admin key is required for this API'),
        proxyError(404, 'No key has this id'),
      ],
    },
    'POST /api/channel/{id}/test': {
      operationId: 'testChannel',
      summary: 'Send one minimal request through a channel',
      description:
        "Sends one minimal request through the channel, whatever its status, with its `testModel`, else its first model, and answers whether it worked, the upstream's status, the latency and the upstream's error message if any (scrubbed of the key). A provider the relay cannot serve, or a channel without a model, answers `ok: false` with the reason and sends nothing. The body is ignored. Never the key.",
      request: { path: z.object({ id: channelIdSchema }) },
      success: {
        status: 200,
        description: 'The result of the test (`ok: false` is a failed test, not a failed call)',
        body: proxySuccessBodySchema(channelTestResultSchema),
        example: {
          success: true,
          data: { ok: false, status: 401, latencyMs: 182, model: 'gpt-4o', message: 'Incorrect API key provided' },
        },
      },
      errors: [
        proxyError(400, 'The id is not 64 hexadecimal characters'),
        proxyError(401, 'The admin key is required for this API'),
        proxyError(404, 'No channel has this id'),
      ],
    },
    'GET /console': {
      operationId: 'getConsole',
      summary: 'The import review console (a web page; no authorization)',
      description:
        'A static HTML page with no data and no secret; every call it makes carries the admin key the operator enters. Served with a Content-Security-Policy that allows only its own script and style.',
      success: {
        status: 200,
        description: 'The page',
        body: z.string().meta({ description: 'An HTML document' }),
        contentType: 'text/html',
      },
      errors: [],
    },
    'GET /console/assets/{name}': {
      operationId: 'getConsoleAsset',
      summary: "The console's SQLite worker or WebAssembly build (no authorization)",
      description:
        "Fetched by the console only when the operator picks a gateway's SQLite file: the worker script that reads the file in the browser, and SQLite's WebAssembly build (gzipped; returned as bytes to a request whose `Accept` is `application/wasm`, else as base64 text). Names carry a hash of the content and are cached for a year.",
      request: {
        path: z.object({
          name: z.string().meta({ description: 'The asset name the page was built with, e.g. `sqlite3-<hash>.wasm`' }),
        }),
      },
      success: {
        status: 200,
        description: 'The asset',
        body: z.string().meta({ description: 'JavaScript, or WebAssembly bytes' }),
        contentTypes: ['text/javascript', 'application/wasm'],
      },
      errors: [proxyError(404, 'No asset has this name (a page of another build asks for it: reload the page)')],
    },
    'GET /openapi.json': openApiContract('getOpenApiDocument', 'Served without a token.'),
    'GET /api/channels/openapi.json': openApiContract(
      'getOpenApiDocumentUnderChannels',
      "The same document under the API's own path prefix: where `npm start` serves both APIs on one host, `/openapi.json` is the knowledge-base API's.",
    ),
  },
  relay: {
    'POST /v1/chat/completions': {
      operationId: 'createChatCompletion',
      summary: 'Create a chat completion through a channel (OpenAI-compatible)',
      description:
        "OpenAI's `POST /v1/chat/completions`, relayed to a channel that lists the model for the key's groups (priority, then weight; on a connection failure, a timeout, 429 or 5xx before the first byte, the next channel, up to the relay's attempts). The body is passed on, with the channel's model mapping, system prompt and parameter overrides applied; an Anthropic channel's answer is converted to OpenAI's. With `stream: true` the answer is `text/event-stream`, written as the upstream writes it. An upstream's error is passed on with its status (docs/relay.md).",
      request: {
        body: chatCompletionRequestSchema,
        bodyExample: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello' }], temperature: 0.2 },
      },
      success: {
        status: 200,
        description: 'The completion (`stream` not true)',
        body: chatCompletionSchema,
        example: {
          id: 'chatcmpl-abc123',
          object: 'chat.completion',
          created: 1_764_230_400,
          model: 'gpt-4o-mini-2024-07-18',
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content: 'Hello!', refusal: null },
              logprobs: null,
              finish_reason: 'stop',
            },
          ],
          usage: { prompt_tokens: 11, completion_tokens: 2, total_tokens: 13 },
        },
      },
      stream: {
        status: 200,
        description: 'The completion as server-sent events (`stream: true`)',
        body: eventStreamSchema,
        contentType: 'text/event-stream',
      },
      errors: RELAY_CHANNEL_ERRORS,
    },
    'POST /v1/embeddings': {
      operationId: 'createEmbedding',
      summary: 'Create embeddings through a channel (OpenAI-compatible)',
      description:
        "OpenAI's `POST /v1/embeddings`, relayed to a channel that lists the model for the key's groups, with the same routing, failover and error pass-through as chat completions. The body is passed on with the channel's model mapping (a `stream` field removed: embeddings never stream, the answer is always JSON); `encoding_format: base64` is answered as the upstream encodes it.",
      request: {
        body: embeddingsRequestSchema,
        bodyExample: { model: 'text-embedding-3-small', input: ['first text', 'second text'] },
      },
      success: {
        status: 200,
        description: 'The embeddings, in the order of `input`',
        body: embeddingListSchema,
        example: {
          object: 'list',
          data: [{ object: 'embedding', index: 0, embedding: [0.0023, -0.0091, 0.0154] }],
          model: 'text-embedding-3-small',
          usage: { prompt_tokens: 4, total_tokens: 4 },
        },
      },
      errors: RELAY_CHANNEL_ERRORS,
    },
    'GET /v1/models': {
      operationId: 'listModels',
      summary: 'The models this key can use (OpenAI-compatible)',
      description:
        "Every model an enabled channel lists for one of the key's groups, narrowed to the key's model allow-list, sorted by name. `created` is 0 and `owned_by` the relay's name: a channel says neither.",
      success: {
        status: 200,
        description: "OpenAI's model list",
        body: modelListSchema,
        example: {
          object: 'list',
          data: [
            { id: 'gpt-4o', object: 'model', created: 0, owned_by: 'kb-channel-gateway' },
            { id: 'gpt-4o-mini', object: 'model', created: 0, owned_by: 'kb-channel-gateway' },
          ],
        },
      },
      errors: [
        relayError(401, 'The relay key has expired (the gateway may have cached its Allow)'),
        relayError(403, 'The key may not be used from this address (`ip_not_allowed`)'),
        relayError(500, 'The channels could not be read, or another unexpected error; the message is generic'),
      ],
    },
    'POST /v1/messages': {
      operationId: 'createMessage',
      summary: "Create a message through a channel (Anthropic's Messages API)",
      description:
        "Anthropic's `POST /v1/messages` (Claude Code, Anthropic's SDKs; the relay key in `x-api-key` or as a Bearer token), routed like a chat completion: passed through to an Anthropic channel, converted to a chat completion for an OpenAI-protocol one and the answer converted back. With `stream: true` the answer is Anthropic's server-sent events. Errors are in Anthropic's envelope (docs/relay.md).",
      request: {
        body: messagesRequestSchema,
        bodyExample: { model: 'claude-3-5-haiku-latest', max_tokens: 256, messages: [{ role: 'user', content: 'Hi' }] },
      },
      success: { status: 200, description: 'The message (`stream` not true)', body: messageSchema },
      stream: {
        status: 200,
        description: "Anthropic's server-sent events (`message_start` … `message_stop`)",
        body: eventStreamSchema,
        contentType: 'text/event-stream',
      },
      errors: [400, 401, 403, 404, 413, 429, 500, 502, 503, 504, 'default' as const].map((status) => ({
        status,
        description:
          status === 'default'
            ? "An upstream's error passed on with its status, in Anthropic's envelope"
            : `In Anthropic's envelope: the relay's own ${status} (as for chat completions) or the upstream's`,
        body: anthropicErrorBodySchema,
      })),
    },
    'POST /v1/responses': {
      operationId: 'createResponse',
      summary: "Create a response through a channel (OpenAI's Responses API)",
      description:
        "OpenAI's `POST /v1/responses` (Codex), passed through to a channel whose provider serves it (openai, custom, openai-compatible, azure); another provider is no candidate (503). With `stream: true` the `response.*` events are passed on as they come.",
      request: {
        body: responsesRequestSchema,
        bodyExample: { model: 'gpt-4o-mini', input: 'Say hello' },
      },
      success: { status: 200, description: 'The response (`stream` not true)', body: responseSchema },
      stream: {
        status: 200,
        description: 'The `response.*` server-sent events',
        body: eventStreamSchema,
        contentType: 'text/event-stream',
      },
      errors: RELAY_CHANNEL_ERRORS,
    },
    'GET /v1/openapi.json': openApiContract(
      'getOpenApiDocument',
      "Served without a key, under the relay's own `/v1` prefix (locally, `/openapi.json` is the knowledge-base API's).",
    ),
  },
};

/** The contract of a route; throws when it has none (every route needs one: see test/openapi). */
export function contractFor(api: ApiName, route: Pick<RouteDef, 'method' | 'path'>): RouteContract {
  const contract = ROUTE_CONTRACTS[api][routeKey(route)];
  if (!contract) {
    throw new Error(
      `Route ${routeKey(route)} of the ${api} API has no contract in openapi/contracts.ts: add one, then run \`npm run openapi\` (docs/openapi.md, "Adding a route")`,
    );
  }
  return contract;
}

/** Routes without a contract, and contracts without a route, as `api: METHOD path ...` lines. */
export function contractMismatches(
  apis: readonly ApiDef[] = Object.values(APIS),
  contracts: Readonly<Record<ApiName, Readonly<Record<string, RouteContract>>>> = ROUTE_CONTRACTS,
): string[] {
  const problems: string[] = [];
  for (const api of apis) {
    const own = contracts[api.name];
    const keys = new Set(api.routes.map(routeKey));
    for (const key of keys) {
      if (!own[key]) problems.push(`${api.name}: ${key} has no contract in openapi/contracts.ts`);
    }
    for (const key of Object.keys(own)) {
      if (!keys.has(key)) problems.push(`${api.name}: ${key} has a contract but no route in shared/routes.ts`);
    }
  }
  return problems;
}
