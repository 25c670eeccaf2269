/**
 * The channel proxy API's relay keys and the relay's usage report.
 */

import * as z from 'zod';
import { usageQuerySchema } from '#functions/usage/schema';
import { proxySuccessBodySchema } from '#shared/envelopes/proxy';
import { keyCreateBodySchema, keyIdSchema, keyUpdateBodySchema } from '#shared/key-view';
import { keyViewSchema } from '#shared/schemas/keys';
import { usageReportSchema } from '#shared/schemas/usage';
import { CHANNEL_EXAMPLE, KEY_EXAMPLE, proxyError, type TopicContracts } from './contract-parts.ts';

export const KEY_CONTRACTS: TopicContracts = {
  proxy: {
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
  },
};
