/**
 * The channel proxy API's import calls: from a gateway's database, and from rows a client sends.
 */

import { importBodySchema, importRowsBodySchema } from '#functions/import-legacygw/schema';
import { proxySuccessBodySchema } from '#shared/envelopes/proxy';
import { importReportSchema } from '#shared/schemas/import-report';
import { proxyError, type TopicContracts } from './contract-parts.ts';

export const IMPORT_CONTRACTS: TopicContracts = {
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
  },
};
