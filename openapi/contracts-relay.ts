/**
 * The relay's `/v1` calls (OpenAI- and Anthropic-compatible).
 */

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
  responseSchema,
  responsesRequestSchema,
} from '#shared/schemas/relay';
import {
  openApiContract,
  type ResponseContract,
  relayError,
  type TopicContracts,
  upstreamError,
} from './contract-parts.ts';

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

export const RELAY_CONTRACTS: TopicContracts = {
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
