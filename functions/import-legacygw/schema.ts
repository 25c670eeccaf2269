import * as z from '#shared/zod';

/** The request body of POST /api/channels/import/legacygw (docs/channel-import.md): unknown fields are dropped; a wrong type is a 400, never a 500. */
export const importBodySchema = z.object({
  dsn: z.string({ error: 'dsn is required and must be a string' }).register(z.globalRegistry, {
    description: 'The legacy gateway database: `user:password@tcp(host:port)/database` or a `mysql://` URL',
  }),
  dryRun: z
    .optional(z.boolean({ error: 'dryRun must be true or false' }))
    .register(z.globalRegistry, { description: 'Map and report, write nothing' }),
});
