import type { Writable } from 'node:stream';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';

/*
 * Lambda response streaming (docs/relay.md, "Streaming"): in the Lambda Node.js runtime (and under AWS's runtime
 * interface client) the globals `awslambda.streamifyResponse` and `awslambda.HttpResponseStream` exist; plain Node
 * has neither. A streaming function is written once against this module: deployed it uses the runtime's globals,
 * and under `npm start` and in tests the local server calls it with a writable that takes the response's head the
 * same way (`setResponseHead`), so the function's code path is the same everywhere.
 */

/** The head of a streamed HTTP response, as `awslambda.HttpResponseStream.from` takes it. */
export interface StreamedResponseHead {
  statusCode: number;
  headers: Record<string, string>;
}

/** The handler a streaming function is written as: the event, the response stream, the invocation's context. */
export type StreamingHandler = (
  event: APIGatewayProxyEvent,
  responseStream: Writable,
  context?: Context,
) => Promise<void>;

/** A writable the local server hands to a streaming function: it takes the head before the first body byte. */
export interface LocalResponseStream extends Writable {
  setResponseHead(head: StreamedResponseHead): void;
}

interface LambdaStreamingGlobals {
  streamifyResponse(handler: StreamingHandler): unknown;
  HttpResponseStream: { from(stream: Writable, head: StreamedResponseHead): Writable };
}

/** Marks a handler as streaming for the local server (which then calls it with a LocalResponseStream). */
export const STREAMING_HANDLER = Symbol.for('kb-channel-gateway.streaming-handler');

// `globalThis.awslambda` alone proves nothing: Powertools' invoke store defines it outside Lambda too.
function lambdaGlobals(): LambdaStreamingGlobals | undefined {
  const runtime = (globalThis as unknown as { awslambda?: Partial<LambdaStreamingGlobals> }).awslambda;
  if (typeof runtime?.streamifyResponse !== 'function' || typeof runtime.HttpResponseStream?.from !== 'function') {
    return undefined;
  }
  return runtime as LambdaStreamingGlobals;
}

/**
 * The function's exported handler: in Lambda the runtime's `streamifyResponse(handler)`; elsewhere the handler
 * itself, marked so the local server streams it.
 */
export function streamifyResponse(handler: StreamingHandler): StreamingHandler {
  const runtime = lambdaGlobals();
  if (runtime) return runtime.streamifyResponse(handler) as StreamingHandler;
  return Object.assign(handler, { [STREAMING_HANDLER]: true });
}

/** True for a handler made by `streamifyResponse` outside Lambda. */
export function isStreamingHandler(handler: unknown): handler is StreamingHandler {
  return typeof handler === 'function' && (handler as unknown as Record<symbol, unknown>)[STREAMING_HANDLER] === true;
}

/**
 * Sets the response's status and headers and returns the stream to write its body to: the runtime's
 * `HttpResponseStream.from` in Lambda, the local server's stream elsewhere. Call once, before the first write.
 */
export function withResponseHead(responseStream: Writable, head: StreamedResponseHead): Writable {
  const runtime = lambdaGlobals();
  if (runtime) return runtime.HttpResponseStream.from(responseStream, head);
  const local = responseStream as Partial<LocalResponseStream>;
  if (typeof local.setResponseHead !== 'function') {
    throw new TypeError('A streaming response needs the Lambda runtime or the local server');
  }
  local.setResponseHead(head);
  return responseStream;
}

/** Writes a whole (buffered) answer to a streaming function's response stream: an error before anything was sent. */
export async function writeWholeResponse(
  responseStream: Writable,
  response: { statusCode: number; headers?: Record<string, string | number | boolean>; body: string },
): Promise<void> {
  const headers = Object.fromEntries(Object.entries(response.headers ?? {}).map(([k, v]) => [k, String(v)]));
  const out = withResponseHead(responseStream, { statusCode: response.statusCode, headers });
  await new Promise<void>((resolve, reject) =>
    out.end(response.body, (error?: Error | null) => (error ? reject(error) : resolve())),
  );
}
