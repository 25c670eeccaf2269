import * as z from 'zod';

/** The request body of POST /api/channels/import/legacygw (docs/channel-import.md): unknown fields are dropped; a wrong type is a 400, never a 500. */
export const importBodySchema = z.object({
  dsn: z
    .string({ error: 'dsn is required and must be a string' })
    .meta({ description: 'The legacy gateway database: `user:password@tcp(host:port)/database` or a `mysql://` URL' }),
  dryRun: z
    .boolean({ error: 'dryRun must be true or false' })
    .optional()
    .meta({ description: 'Map and report, write nothing' }),
});
