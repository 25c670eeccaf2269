import * as z from 'zod';

/*
 * The relay API's bodies (`/v1`, docs/relay.md) as its OpenAPI document describes them (openapi/contracts.ts). They
 * follow OpenAI's API reference as typed by OpenAI's Node SDK (openai-node 6.49.0, the version the end-to-end test
 * runs: `src/resources/chat/completions/completions.ts`, `src/resources/embeddings.ts`, `src/resources/models.ts`,
 * `src/core/error.ts`). The relay passes what it does not read on to the channel, and passes the upstream's answer
 * back, so the request bodies are open and the upstream-made answers open wherever OpenAI adds fields: only what
 * the relay itself reads or writes is required. Classic zod: nothing here runs in a function.
 */

// ---------------------------------------------------------------------------------------------------- requests

const chatMessageSchema = z
  .looseObject({
    role: z.string().meta({ description: '`system`, `developer`, `user`, `assistant`, `tool` (or `function`)' }),
    content: z
      .union([z.string(), z.array(z.looseObject({ type: z.string() })), z.null()])
      .optional()
      .meta({ description: 'Text, or an array of content parts (`text`, `image_url`, `input_audio`, `file`)' }),
  })
  .meta({ description: 'One message of the conversation, as OpenAI defines it; passed on as sent' });

/** `POST /v1/chat/completions`: OpenAI's ChatCompletionCreateParams, open. */
export const chatCompletionRequestSchema = z
  .looseObject({
    model: z.string().min(1).meta({
      description:
        "The model name a channel lists (the caller's groups decide which channels); the channel's model mapping may send another name upstream",
    }),
    messages: z.array(chatMessageSchema).meta({ description: 'The conversation so far' }),
    stream: z
      .boolean()
      .optional()
      .meta({ description: '`true`: the answer is `text/event-stream` (chat.completion.chunk events, then `[DONE]`)' }),
    stream_options: z
      .looseObject({ include_usage: z.boolean().optional() })
      .optional()
      .meta({ description: 'With `stream`: `include_usage: true` adds a last chunk with `usage` and no choices' }),
  })
  .meta({
    description:
      "OpenAI's chat completion request. Every other field OpenAI defines (`temperature`, `max_tokens`, `tools`, `response_format`, …) or a provider adds is passed on to the channel unchanged; the relay reads only `model`, `stream` and `stream_options`.",
  });

/** `POST /v1/embeddings`: OpenAI's EmbeddingCreateParams, open. */
export const embeddingsRequestSchema = z
  .looseObject({
    model: z.string().min(1).meta({ description: 'The model name a channel lists' }),
    input: z
      .union([z.string(), z.array(z.string()), z.array(z.number()), z.array(z.array(z.number()))])
      .meta({ description: 'Text, an array of texts, an array of tokens or an array of token arrays' }),
    encoding_format: z
      .string()
      .optional()
      .meta({ description: '`float` (default) or `base64`: then each `embedding` is base64 of little-endian float32' }),
    dimensions: z.number().optional(),
  })
  .meta({
    description:
      "OpenAI's embeddings request. Other fields (`user`, a provider's own) are passed on to the channel unchanged, but `stream`: embeddings never stream.",
  });

// --------------------------------------------------------------------------------------------------- responses

const usageSchema = z
  .looseObject({
    prompt_tokens: z.number(),
    completion_tokens: z.number().optional(),
    total_tokens: z.number(),
  })
  .meta({ description: "Token counts as the upstream reports them (details fields as OpenAI's, when sent)" });

/** A non-stream chat answer: OpenAI's ChatCompletion (an Anthropic channel's answer converted to it). */
export const chatCompletionSchema = z
  .looseObject({
    id: z.string(),
    object: z.literal('chat.completion'),
    created: z.number(),
    model: z.string().meta({ description: 'The model the upstream reports' }),
    choices: z.array(
      z.looseObject({
        index: z.number(),
        message: z.looseObject({
          role: z.string(),
          content: z.union([z.string(), z.null()]).optional(),
        }),
        finish_reason: z.union([z.string(), z.null()]).optional(),
      }),
    ),
    usage: usageSchema.optional(),
  })
  .meta({ description: "OpenAI's `chat.completion` object; fields OpenAI or the provider add are passed on" });

/** A list of embeddings: OpenAI's CreateEmbeddingResponse. */
export const embeddingListSchema = z
  .looseObject({
    object: z.literal('list'),
    data: z.array(
      z.looseObject({
        object: z.literal('embedding'),
        index: z.number(),
        embedding: z
          .union([z.array(z.number()), z.string()])
          .meta({ description: 'Floats, or base64 when `encoding_format` is `base64`' }),
      }),
    ),
    model: z.string(),
    usage: usageSchema.optional(),
  })
  .meta({ description: "OpenAI's embeddings list; fields OpenAI or the provider add are passed on" });

/** One model of `GET /v1/models` (the relay writes it: closed). */
export const modelSchema = z.strictObject({
  id: z.string().meta({ description: "A model name the key's groups can use through an enabled channel" }),
  object: z.literal('model'),
  created: z.number().meta({ description: 'Always 0: a channel does not say when its model was made' }),
  owned_by: z.string(),
});

/** `GET /v1/models`: OpenAI's model list, as the relay builds it (functions/relay/relay-http.ts). */
export const modelListSchema = z.strictObject({
  object: z.literal('list'),
  data: z.array(modelSchema),
});
export type ModelList = z.output<typeof modelListSchema>;

/** A streamed chat answer: server-sent events, described (OpenAPI 3.1 has no schema for an event stream). */
export const eventStreamSchema = z.string().meta({
  description:
    'Server-sent events, passed on as the upstream writes them: `data: {…}` lines, each an OpenAI `chat.completion.chunk` object (an Anthropic channel\'s events converted to them), ending with `data: [DONE]`. A failure after the first event ends the stream with `data: {"error": {…}}` (OpenAI\'s error envelope) and no `[DONE]`.',
});

// ------------------------------------------------------------------------------------------------------ errors

/**
 * An error the relay answers itself (functions/relay/relay-http.ts, shared/relay/relay.ts) or API Gateway answers for
 * it: OpenAI's envelope, all four fields always present (shared/envelopes/openai.ts).
 */
export const relayErrorBodySchema = z.strictObject({
  error: z.strictObject({
    message: z.string(),
    type: z.string().meta({
      description:
        "OpenAI's error type (`invalid_request_error`, `permission_error`, `rate_limit_error`, `server_error`, …), or the relay's `service_unavailable` and `upstream_error`",
    }),
    param: z.union([z.string(), z.null()]).meta({ description: 'The request field at fault (`model`), or null' }),
    code: z.union([z.string(), z.null()]).meta({
      description:
        'A machine-readable code (`invalid_api_key`, `model_not_allowed`, `ip_not_allowed`, `no_channel_none`, `all_channels_failing`, `upstream_502`, …), or null',
    }),
  }),
});

/**
 * An upstream's error passed on as the upstream wrote it (scrubbed of the channel's key), when it is in OpenAI's
 * envelope already; OpenAI-compatible providers add fields or leave some out, so only `error.message` is sure.
 */
export const upstreamErrorBodySchema = z
  .looseObject({
    error: z.looseObject({
      message: z.string(),
      type: z.union([z.string(), z.null()]).optional(),
      param: z.union([z.string(), z.null()]).optional(),
      code: z
        .unknown()
        .optional()
        .meta({ description: 'A string or null as OpenAI writes it; some providers write a number' }),
    }),
  })
  .meta({ description: "OpenAI's error envelope as an upstream wrote it; fields it adds are passed on" });

// ------------------------------------------------------------------ Anthropic's Messages API and OpenAI's Responses

/**
 * `POST /v1/messages`: Anthropic's Messages request (anthropic-sdk-typescript 1.14.0, `MessageCreateParams`), open: the
 * relay reads `model` and `stream`, and passes the rest on (to an Anthropic channel as sent, to an OpenAI-protocol one
 * converted to a chat completion).
 */
export const messagesRequestSchema = z
  .looseObject({
    model: z.string().min(1).meta({ description: 'The model name a channel lists' }),
    max_tokens: z.number().meta({ description: 'Required by Anthropic' }),
    messages: z.array(z.looseObject({ role: z.string() })).meta({ description: 'The conversation so far' }),
    stream: z.boolean().optional().meta({ description: "`true`: the answer is Anthropic's server-sent events" }),
  })
  .meta({ description: "Anthropic's Messages request; `system`, `tools`, `temperature`, … passed on" });

/** An Anthropic message (the non-stream answer), open where Anthropic adds fields. */
export const messageSchema = z.looseObject({
  id: z.string(),
  type: z.literal('message'),
  role: z.literal('assistant'),
  model: z.string(),
  content: z.array(z.looseObject({ type: z.string() })),
  stop_reason: z.union([z.string(), z.null()]),
  usage: z.looseObject({ input_tokens: z.number(), output_tokens: z.number() }),
});

/** Anthropic's error envelope, which `/v1/messages` answers in (functions/relay/anthropic-errors.ts). */
export const anthropicErrorBodySchema = z.looseObject({
  type: z.literal('error'),
  error: z.looseObject({
    type: z.string().meta({
      description: "Anthropic's error type (`invalid_request_error`, `authentication_error`, `api_error`, …)",
    }),
    message: z.string(),
  }),
});

/** `POST /v1/responses`: OpenAI's ResponseCreateParams (openai-node 6.49.0), open; passed through to the channel. */
export const responsesRequestSchema = z
  .looseObject({
    model: z.string().min(1).meta({ description: 'The model name a channel lists' }),
    input: z.unknown().optional().meta({ description: 'Text or an array of input items' }),
    stream: z.boolean().optional().meta({ description: '`true`: `response.*` server-sent events' }),
  })
  .meta({ description: "OpenAI's Responses request; every field passed on to a channel that serves it" });

/** An OpenAI response object, open. */
export const responseSchema = z.looseObject({ id: z.string(), object: z.literal('response'), model: z.string() });
