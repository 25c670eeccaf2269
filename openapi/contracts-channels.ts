/**
 * The channel proxy API's review calls (list, read, edit, delete, test a channel), its console and its document.
 */

import * as z from 'zod';
import { batchDeleteBodySchema } from '#functions/batch-delete-channels/batch-delete-channels';
import { listQuerySchema } from '#functions/list-channels/list-channels';
import { updateChannelBodySchema } from '#functions/update-channel/update-channel';
import { proxySuccessBodySchema } from '#shared/envelopes/proxy';
import {
  batchDeleteResultSchema,
  channelIdSchema,
  channelPageSchema,
  channelTestResultSchema,
  channelViewSchema,
} from '#shared/schemas/channels';
import { CHANNEL_EXAMPLE, openApiContract, proxyError, type TopicContracts } from './contract-parts.ts';

export const CHANNEL_CONTRACTS: TopicContracts = {
  proxy: {
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
};
