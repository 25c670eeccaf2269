import * as z from '#shared/zod';

/**
 * The usage API's response shapes (GET /api/usage), written once: the function builds values of these types and the
 * OpenAPI document describes them from these schemas. A record is shared/relay/contract.ts's UsageRecord.
 */

const count = () => z.int().check(z.minimum(0));

/** One usage record as the API shows it: the stored record without its keys and expiry. Never a key or a body. */
export const usageRecordSchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.strictObject({
    requestId: z.string(),
    time: z.string(),
    keyId: z.string(),
    group: z.string(),
    endpoint: z.enum(['chat', 'embeddings', 'messages', 'responses', 'count_tokens', 'rerank']),
    requestedModel: z.string(),
    upstreamModel: z.optional(z.string()),
    channelId: z.optional(z.string()),
    attempts: z.array(z.strictObject({ channelId: z.string(), status: z.int(), errorClass: z.optional(z.string()) })),
    status: z.int(),
    promptTokens: z.optional(count()),
    completionTokens: z.optional(count()),
    totalTokens: z.optional(count()),
    firstByteMs: z.optional(z.number()),
    durationMs: z.number(),
    stream: z.boolean(),
    clientGone: z.boolean(),
    cost: z.optional(z.number()),
  }),
);
export type UsageRecordView = z.infer<typeof usageRecordSchema>;

const figureShape = {
  requests: count(),
  /** Requests answered with status 400 or more. */
  errors: count(),
  /** Requests that needed more than one attempt. */
  failovers: count(),
  promptTokens: count(),
  completionTokens: count(),
  totalTokens: count(),
  /** Successful requests whose upstream reported no usage (counted as unknown, never as zero tokens). */
  unknownUsage: count(),
};

/** Figures over a set of records. */
export const usageFiguresSchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.strictObject(figureShape).register(z.globalRegistry, {
    description:
      '`errors`: status 400 or more; `failovers`: more than one attempt; tokens summed where the upstream reported them; `unknownUsage`: successful requests without usage from the upstream',
  }),
);
export type UsageFigures = z.infer<typeof usageFiguresSchema>;

/** The `data` of GET /api/usage. */
export const usageReportSchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.strictObject({
    from: z.string().register(z.globalRegistry, { description: 'Start of the period read (ISO 8601, inclusive)' }),
    to: z.string().register(z.globalRegistry, { description: 'End of the period read (ISO 8601, inclusive)' }),
    records: z.array(usageRecordSchema).register(z.globalRegistry, {
      description: 'This page of the matching records, newest first',
    }),
    total: count().register(z.globalRegistry, { description: 'Matching records read (see `truncated`)' }),
    totals: usageFiguresSchema,
    byChannel: z
      .array(
        z.strictObject({
          channelId: z.nullable(z.string()).register(z.globalRegistry, {
            description: 'The channel that gave the final answer; null for requests no channel answered',
          }),
          name: z.optional(
            z
              .string()
              .register(z.globalRegistry, { description: "The channel's name (absent when it no longer exists)" }),
          ),
          provider: z.optional(z.string()),
          ...figureShape,
          attempts: count().register(z.globalRegistry, { description: 'Attempts sent to this channel' }),
          failedAttempts: count().register(z.globalRegistry, {
            description: 'Attempts on this channel that failed (no answer or status 400 or more)',
          }),
        }),
      )
      .register(z.globalRegistry, { description: 'Per channel, most requests first; at most 100 rows' }),
    byModel: z
      .array(z.strictObject({ model: z.string(), ...figureShape }))
      .register(z.globalRegistry, { description: 'Per requested model, most requests first; at most 100 rows' }),
    truncated: z.boolean().register(z.globalRegistry, {
      description:
        'True when the period holds more records than one call reads (10,000): the figures cover the newest ones; ask for a shorter period',
    }),
  }),
);
export type UsageReport = z.infer<typeof usageReportSchema>;
