import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { type RerankStyle, rerankAnswer } from './fake-rerank.ts';
import { serveResponses } from './fake-responses.ts';

/*
 * Fake upstreams on 127.0.0.1 for the relay's tests, one per wire protocol, written from the providers' API
 * references: OpenAI (chat, streamed chat as `data:` events ending `data: [DONE]`, embeddings, models), Azure OpenAI
 * (deployment path, `api-version` required, `api-key` header), OpenAI's Responses API on both (fake-responses.ts), Jina's
 * and Cohere's rerank on the OpenAI one (fake-rerank.ts) and Anthropic Messages (non-stream and the SSE events
 * message_start, content_block_start/delta/stop, message_delta with usage, message_stop, ping, error). Each records
 * the requests it got and takes faults on demand.
 */

export type Fault =
  | { readonly kind: 'rate-limited'; readonly retryAfterSeconds?: number }
  | { readonly kind: 'server-error'; readonly status?: number }
  | { readonly kind: 'invalid-key' }
  | { readonly kind: 'status'; readonly status: number; readonly body?: unknown }
  /** The connection is reset before any byte of the response. */
  | { readonly kind: 'reset' }
  | { readonly kind: 'slow-first-byte'; readonly delayMs: number }
  /** A stream that sends `afterEvents` events, then the connection is destroyed. */
  | { readonly kind: 'drop-mid-stream'; readonly afterEvents: number }
  /** A stream whose content totals about `bytes` bytes. */
  | { readonly kind: 'big-stream'; readonly bytes: number }
  /** 200 with text/html whatever was asked. */
  | { readonly kind: 'wrong-content-type' }
  /** Anthropic: an `error` event after the first content delta. */
  | { readonly kind: 'stream-error-event' };

export interface RecordedRequest {
  readonly method: string;
  /** Path and query. */
  readonly url: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingMessage['headers'];
  readonly body: Record<string, unknown> | undefined;
}

export interface FakeOptions {
  /** The key the fake accepts; any other is 401 with the provider's invalid-key error. Default: any key. */
  readonly key?: string;
  /** The model the fake reports; default the requested one. */
  readonly reportModel?: string;
  /** Text of the answer (default "Hello from the fake"). */
  readonly reply?: string;
  /** Anthropic and OpenAI: answer with a tool call to this function. */
  readonly toolCall?: { readonly name: string; readonly arguments: Record<string, unknown> };
  /** OpenAI and Anthropic streams: milliseconds between two content events (a model that writes as it thinks). */
  readonly eventGapMs?: number;
  /** OpenAI embeddings: the vector of one input (default: the same small vector for every input). */
  readonly embed?: (input: string) => number[];
  /** OpenAI-compatible `/v1/rerank`: Jina's answer (default) or Cohere's. */
  readonly rerankStyle?: RerankStyle;
  /** OpenAI-compatible `/v1/rerank`: a document's relevance to the query (default: the share of the query's words). */
  readonly rerankScore?: (query: string, document: string) => number;
}

export interface FakeUpstream {
  readonly url: string;
  readonly port: number;
  readonly requests: RecordedRequest[];
  /** Responses whose connection closed before their end (the client aborted, or a fault cut it). */
  readonly closedEarly: () => number;
  /** Queues a fault for the next `times` requests (default 1). */
  fault(fault: Fault, times?: number): void;
  /** A fault for every request from now on (until cleared). */
  faultAlways(fault: Fault): void;
  clearFaults(): void;
  close(): Promise<void>;
}

type Protocol = 'openai' | 'azure' | 'anthropic';

const EMBEDDING = [0.01, -0.02, 0.03];
const USAGE = { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 };

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

async function write(res: ServerResponse, text: string): Promise<void> {
  if (!res.write(text)) await once(res, 'drain');
}

function openAiError(message: string, type: string, code: string | null, param: string | null = null) {
  return { error: { message, type, param, code } };
}

async function readBody(req: IncomingMessage): Promise<Record<string, unknown> | undefined> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Cuts the connection once what was written has left (a bare destroy would drop the buffered events too). */
async function drop(res: ServerResponse): Promise<void> {
  await new Promise<void>((resolve) => res.write('', () => resolve()));
  await sleep(20);
  res.socket?.destroy();
}

/** What a fake records of a request: method, path and query, headers, and its JSON body (undefined when not JSON). */
export function recordedRequest(req: IncomingMessage, body: Record<string, unknown> | undefined): RecordedRequest {
  const url = new URL(req.url ?? '/', 'http://fake');
  return {
    method: req.method ?? 'GET',
    url: req.url ?? '/',
    path: url.pathname,
    query: url.searchParams,
    headers: req.headers,
    body,
  };
}

/** Starts a fake's server on a random loopback port; `close` also ends the connections still open (a hung stream). */
export async function listenOnLoopback(server: Server): Promise<{ url: string; port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    async close() {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, 'close').catch(() => undefined);
    },
  };
}

async function start(protocol: Protocol, options: FakeOptions): Promise<FakeUpstream> {
  const requests: RecordedRequest[] = [];
  const queue: Fault[] = [];
  let always: Fault | undefined;
  let closedEarly = 0;

  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const body = await readBody(req);
    requests.push(recordedRequest(req, body));
    res.on('close', () => {
      if (!res.writableFinished) closedEarly++;
    });
    const fault = queue.shift() ?? always;
    try {
      await serve(protocol, options, { req, res, url, body, fault });
    } catch {
      res.destroy();
    }
  });
  const listening = await listenOnLoopback(server);
  return {
    url: listening.url,
    port: listening.port,
    requests,
    closedEarly: () => closedEarly,
    fault(fault, times = 1) {
      for (let i = 0; i < times; i++) queue.push(fault);
    },
    faultAlways(fault) {
      always = fault;
    },
    clearFaults() {
      queue.length = 0;
      always = undefined;
    },
    close: listening.close,
  };
}

/** One request to a fake: the request, its response, its URL and parsed JSON body, and the fault to play. */
interface Exchange {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly url: URL;
  readonly body: Record<string, unknown> | undefined;
  readonly fault: Fault | undefined;
}

async function serve(protocol: Protocol, options: FakeOptions, exchange: Exchange): Promise<void> {
  const { req, res, url, body, fault } = exchange;
  if (fault?.kind === 'reset') {
    req.socket.destroy();
    return;
  }
  if (fault?.kind === 'slow-first-byte') await sleep(fault.delayMs);
  if (fault?.kind === 'rate-limited') {
    send(res, 429, openAiError('Rate limit reached', 'requests', 'rate_limit_exceeded'), {
      'retry-after': String(fault.retryAfterSeconds ?? 1),
    });
    return;
  }
  if (fault?.kind === 'server-error') {
    send(
      res,
      fault.status ?? 500,
      openAiError('The server had an error while processing your request.', 'server_error', null),
    );
    return;
  }
  if (fault?.kind === 'status') {
    send(res, fault.status, fault.body ?? openAiError(`fake status ${fault.status}`, 'invalid_request_error', null));
    return;
  }
  if (fault?.kind === 'wrong-content-type') {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<html><body>Welcome to nginx!</body></html>');
    return;
  }
  if (protocol === 'anthropic') return serveAnthropic(options, exchange);
  // OpenAI and Azure
  const key =
    protocol === 'azure' ? req.headers['api-key'] : String(req.headers.authorization ?? '').replace(/^Bearer /, '');
  if (fault?.kind === 'invalid-key' || (options.key !== undefined && key !== options.key)) {
    if (protocol === 'azure') {
      send(res, 401, {
        error: {
          code: '401',
          message:
            'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.',
        },
      });
    } else {
      send(
        res,
        401,
        openAiError(
          'Incorrect API key provided: sk-****. You can find your API key at https://platform.openai.com/account/api-keys.',
          'invalid_request_error',
          'invalid_api_key',
        ),
      );
    }
    return;
  }
  if (protocol === 'openai' && req.method === 'POST' && url.pathname.endsWith('/rerank')) {
    const answer = rerankAnswer(body, options.rerankStyle ?? 'jina', options.rerankScore);
    return send(res, answer.status, answer.body);
  }
  let endpoint: string | undefined;
  // OpenAI's Responses API: /v1/responses on OpenAI, Azure's v1 API path on Azure.
  if (req.method === 'POST' && url.pathname.endsWith(protocol === 'azure' ? '/openai/v1/responses' : '/v1/responses')) {
    if (!body || typeof body.model !== 'string')
      return send(res, 400, openAiError('Missing required parameter: model', 'invalid_request_error', null, 'model'));
    const model = options.reportModel ?? body.model;
    return serveResponses(res, body, model, options.reply ?? 'Hello from the fake', options.eventGapMs);
  }
  if (protocol === 'azure') {
    const match = /^\/openai\/deployments\/([^/]+)\/(chat\/completions|embeddings)$/.exec(url.pathname);
    if (!match) return send(res, 404, { error: { code: '404', message: 'Resource not found' } });
    if (!url.searchParams.get('api-version')) {
      return send(res, 404, { error: { code: '404', message: 'Resource not found' } });
    }
    endpoint = match[2];
  } else if (req.method === 'GET' && url.pathname.endsWith('/models')) {
    return send(res, 200, {
      object: 'list',
      data: [{ id: options.reportModel ?? 'gpt-4o-mini', object: 'model', created: 1_700_000_000, owned_by: 'fake' }],
    });
  } else if (url.pathname.endsWith('/chat/completions')) endpoint = 'chat/completions';
  else if (url.pathname.endsWith('/embeddings')) endpoint = 'embeddings';
  if (endpoint === undefined || req.method !== 'POST')
    return send(res, 404, openAiError('Not found', 'invalid_request_error', 'not_found'));
  if (!body || (typeof body.model !== 'string' && protocol !== 'azure')) {
    return send(res, 400, openAiError('you must provide a model parameter', 'invalid_request_error', null, 'model'));
  }
  const model = options.reportModel ?? String(body.model ?? 'azure-deployment');
  if (endpoint === 'embeddings') {
    const inputs = Array.isArray(body.input) ? body.input : [body.input];
    return send(res, 200, {
      object: 'list',
      // OpenAI's SDK asks for base64 (little-endian float32) by default.
      data: inputs.map((input, index) => {
        const vector = options.embed ? options.embed(String(input)) : EMBEDDING;
        return {
          object: 'embedding',
          index,
          embedding:
            body.encoding_format === 'base64'
              ? Buffer.from(new Float32Array(vector).buffer).toString('base64')
              : vector,
        };
      }),
      model,
      usage: { prompt_tokens: 4, total_tokens: 4 },
    });
  }
  const reply = options.reply ?? 'Hello from the fake';
  const created = 1_700_000_000;
  if (body.stream !== true) {
    const message: Record<string, unknown> = { role: 'assistant', content: reply, refusal: null };
    if (options.toolCall) {
      message.content = null;
      message.tool_calls = [
        {
          id: 'call_fake',
          type: 'function',
          function: { name: options.toolCall.name, arguments: JSON.stringify(options.toolCall.arguments) },
        },
      ];
    }
    return send(res, 200, {
      id: 'chatcmpl-fake',
      object: 'chat.completion',
      created,
      model,
      choices: [{ index: 0, message, logprobs: null, finish_reason: options.toolCall ? 'tool_calls' : 'stop' }],
      usage: USAGE,
    });
  }
  const includeUsage = (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    `data: ${JSON.stringify({
      id: 'chatcmpl-fake',
      object: 'chat.completion.chunk',
      created,
      model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      ...(includeUsage ? { usage: null } : {}),
    })}\n\n`;
  const pieces = fault?.kind === 'big-stream' ? bigPieces(fault.bytes) : reply.split(/(?= )/);
  const events = [chunk({ role: 'assistant', content: '', refusal: null })];
  let sent = 0;
  const dropAt = fault?.kind === 'drop-mid-stream' ? fault.afterEvents : Number.POSITIVE_INFINITY;
  if (dropAt === 0) {
    res.flushHeaders();
    await drop(res);
    return;
  }
  await write(res, events[0] as string);
  sent++;
  for (const piece of pieces) {
    if (sent >= dropAt) {
      await drop(res);
      return;
    }
    if (options.eventGapMs) await sleep(options.eventGapMs);
    await write(res, chunk({ content: piece }));
    sent++;
  }
  if (sent >= dropAt) {
    await drop(res);
    return;
  }
  await write(res, chunk({}, 'stop'));
  if (includeUsage) {
    await write(
      res,
      `data: ${JSON.stringify({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', created, model, choices: [], usage: USAGE })}\n\n`,
    );
  }
  res.end('data: [DONE]\n\n');
}

function* bigPieces(bytes: number): Generator<string> {
  const piece = 'x'.repeat(16 * 1024);
  for (let total = 0; total < bytes; total += piece.length) yield piece;
}

async function serveAnthropic(options: FakeOptions, { req, res, url, body, fault }: Exchange): Promise<void> {
  const anthropicError = (status: number, type: string, message: string) =>
    send(res, status, { type: 'error', error: { type, message } });
  const counting = url.pathname === '/v1/messages/count_tokens';
  if ((url.pathname !== '/v1/messages' && !counting) || req.method !== 'POST')
    return anthropicError(404, 'not_found_error', 'Not found');
  const key = req.headers['x-api-key'];
  if (fault?.kind === 'invalid-key' || key === undefined || (options.key !== undefined && key !== options.key)) {
    return anthropicError(401, 'authentication_error', 'invalid x-api-key');
  }
  if (!req.headers['anthropic-version'])
    return anthropicError(400, 'invalid_request_error', 'anthropic-version: header is required');
  if (!body || typeof body.model !== 'string' || !Array.isArray(body.messages)) {
    return anthropicError(400, 'invalid_request_error', 'model: Field required');
  }
  // Token counting (Anthropic's `POST /v1/messages/count_tokens`): `{"input_tokens"}`, about a token per 4 bytes here.
  if (counting) return send(res, 200, { input_tokens: Math.max(1, Math.ceil(JSON.stringify(body).length / 4)) });
  if (typeof body.max_tokens !== 'number')
    return anthropicError(400, 'invalid_request_error', 'max_tokens: Field required');
  const model = options.reportModel ?? body.model;
  const reply = options.reply ?? 'Hello from the fake';
  const usage = { input_tokens: 12, output_tokens: 6 };
  if (body.stream !== true) {
    const content: Record<string, unknown>[] = [{ type: 'text', text: reply }];
    if (options.toolCall)
      content.push({
        type: 'tool_use',
        id: 'toolu_fake',
        name: options.toolCall.name,
        input: options.toolCall.arguments,
      });
    return send(res, 200, {
      id: 'msg_fake',
      type: 'message',
      role: 'assistant',
      model,
      content,
      stop_reason: options.toolCall ? 'tool_use' : 'end_turn',
      stop_sequence: null,
      usage,
    });
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const event = (name: string, data: Record<string, unknown>) =>
    `event: ${name}\ndata: ${JSON.stringify({ type: name, ...data })}\n\n`;
  const dropAt = fault?.kind === 'drop-mid-stream' ? fault.afterEvents : Number.POSITIVE_INFINITY;
  let sent = 0;
  const emit = async (text: string): Promise<boolean> => {
    if (sent >= dropAt) {
      await drop(res);
      return false;
    }
    await write(res, text);
    sent++;
    return true;
  };
  const steps: string[] = [
    event('message_start', {
      message: {
        id: 'msg_fake',
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: usage.input_tokens, output_tokens: 1 },
      },
    }),
    event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
    event('ping', {}),
  ];
  for (const step of steps) if (!(await emit(step))) return;
  const pieces = fault?.kind === 'big-stream' ? [...bigPieces(fault.bytes)] : reply.split(/(?= )/);
  let first = true;
  for (const piece of pieces) {
    if (options.eventGapMs) await sleep(options.eventGapMs);
    if (!(await emit(event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: piece } })))) return;
    if (first && fault?.kind === 'stream-error-event') {
      res.end(event('error', { error: { type: 'overloaded_error', message: 'Overloaded' } }));
      return;
    }
    first = false;
  }
  if (!(await emit(event('content_block_stop', { index: 0 })))) return;
  if (options.toolCall) {
    const json = JSON.stringify(options.toolCall.arguments);
    const half = Math.floor(json.length / 2);
    for (const step of [
      event('content_block_start', {
        index: 1,
        content_block: { type: 'tool_use', id: 'toolu_fake', name: options.toolCall.name, input: {} },
      }),
      event('content_block_delta', {
        index: 1,
        delta: { type: 'input_json_delta', partial_json: json.slice(0, half) },
      }),
      event('content_block_delta', { index: 1, delta: { type: 'input_json_delta', partial_json: json.slice(half) } }),
      event('content_block_stop', { index: 1 }),
    ]) {
      if (!(await emit(step))) return;
    }
  }
  if (
    !(await emit(
      event('message_delta', {
        delta: { stop_reason: options.toolCall ? 'tool_use' : 'end_turn', stop_sequence: null },
        usage: { output_tokens: usage.output_tokens },
      }),
    ))
  )
    return;
  res.end(event('message_stop', {}));
}

/** An OpenAI-compatible upstream (any path ending in /chat/completions, /embeddings, /rerank or /models). */
export const startFakeOpenAi = (options: FakeOptions = {}) => start('openai', options);
/** An Azure OpenAI upstream: /openai/deployments/{deployment}/{chat/completions|embeddings}?api-version=…, `api-key`. */
export const startFakeAzure = (options: FakeOptions = {}) => start('azure', options);
/** An Anthropic Messages upstream: POST /v1/messages (and /v1/messages/count_tokens), `x-api-key`, `anthropic-version`. */
export const startFakeAnthropic = (options: FakeOptions = {}) => start('anthropic', options);
