import * as z from 'zod';
import { anthropicErrorBodySchema } from '#shared/schemas/relay';
import type { RouteContract, TopicContracts } from './contract-parts.ts';

/*
 * `POST /v1/messages/count_tokens` (docs/relay.md, "Endpoints"): Anthropic's token counting request and answer
 * (anthropic-sdk-typescript 1.14.0, `MessageCountTokensParams` and `MessageTokensCount`), errors in Anthropic's
 * envelope as `/v1/messages` answers them.
 */

export const countTokensRequestSchema = z
  .looseObject({
    model: z.string().min(1).meta({ description: 'The model name a channel lists' }),
    messages: z.array(z.looseObject({ role: z.string() })).meta({ description: 'The conversation to count' }),
  })
  .meta({ description: "Anthropic's token counting request; `system`, `tools`, `tool_choice`, … passed on" });

export const tokensCountSchema = z.looseObject({
  input_tokens: z.number().meta({ description: 'Tokens of the request as the model reads them' }),
});

export const countTokensContract: RouteContract = {
  operationId: 'countMessageTokens',
  summary: "Count a message's input tokens through a channel (Anthropic's token counting)",
  description:
    "Anthropic's `POST /v1/messages/count_tokens` (Claude Code; the relay key in `x-api-key` or as a Bearer token), routed like a message: passed through to an Anthropic channel, answered by Bedrock's CountTokens on an AWS channel (exact counts by the provider, never an estimate); other providers are no candidate (503). Never streamed, never charged to a key's quota. Errors are in Anthropic's envelope (docs/relay.md).",
  request: {
    body: countTokensRequestSchema,
    bodyExample: { model: 'claude-3-5-haiku-latest', messages: [{ role: 'user', content: 'Hi' }] },
  },
  success: {
    status: 200,
    description: 'The count',
    body: tokensCountSchema,
    example: { input_tokens: 8 },
  },
  errors: [400, 401, 403, 404, 413, 429, 500, 502, 503, 504, 'default' as const].map((status) => ({
    status,
    description:
      status === 'default'
        ? "An upstream's error passed on with its status, in Anthropic's envelope"
        : `In Anthropic's envelope: the relay's own ${status} (as for messages) or the upstream's`,
    body: anthropicErrorBodySchema,
  })),
};

/** The topic's contracts, registered in openapi/contracts.ts. */
export const COUNT_TOKENS_CONTRACTS: TopicContracts = {
  relay: { 'POST /v1/messages/count_tokens': countTokensContract },
};
