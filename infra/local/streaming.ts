import type { ServerResponse } from 'node:http';
import { Writable } from 'node:stream';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { LocalResponseStream, StreamedResponseHead, StreamingHandler } from '#shared/lambda-streaming';

/** How much of a streamed JSON answer the gateway keeps for `onResponse` (tests check it against the contract). */
const CAPTURE_LIMIT = 1024 * 1024;

/**
 * The local twin of Lambda response streaming behind an API Gateway method in streaming transfer mode: the head goes
 * out when the function sets it, each chunk is written to the socket as the function writes it (no buffering, with
 * the socket's back-pressure), and a client that goes away destroys the stream the function writes to.
 */
class SocketResponseStream extends Writable implements LocalResponseStream {
  private readonly captured: Buffer[] = [];
  private capturedBytes = 0;
  private captureJson = false;
  statusCode = 200;
  headers: Record<string, string> = {};

  constructor(
    private readonly res: ServerResponse,
    private readonly requestId: string,
  ) {
    super();
    // The client went away before the end: the function sees its stream closed early.
    res.once('close', () => {
      if (!res.writableFinished) this.destroy();
    });
  }

  setResponseHead(head: StreamedResponseHead): void {
    if (this.res.headersSent) return;
    this.statusCode = head.statusCode;
    this.headers = { ...head.headers, 'x-amzn-RequestId': this.requestId };
    this.captureJson = /json/i.test(head.headers['content-type'] ?? head.headers['Content-Type'] ?? '');
    this.res.writeHead(head.statusCode, this.headers);
    // The head leaves now, before the first body byte: a client sees the status as soon as the function knows it.
    this.res.flushHeaders();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (!this.res.headersSent) this.setResponseHead({ statusCode: 200, headers: {} });
    if (this.captureJson && this.capturedBytes < CAPTURE_LIMIT) {
      this.captured.push(chunk);
      this.capturedBytes += chunk.length;
    }
    if (this.res.write(chunk)) callback();
    else this.res.once('drain', () => callback());
  }

  override _final(callback: (error?: Error | null) => void): void {
    if (!this.res.headersSent) this.setResponseHead({ statusCode: 200, headers: {} });
    this.res.end(() => callback());
  }

  capturedBody(): Buffer {
    return Buffer.concat(this.captured);
  }
}

/**
 * Runs a streaming function for one request and resolves with the status sent, once the function has returned
 * (after the response ended: its usage write happens after the client has the whole answer).
 */
export async function streamThrough(
  handler: StreamingHandler,
  event: APIGatewayProxyEvent,
  res: ServerResponse,
  requestId: string,
  onDone: (statusCode: number, headers: Record<string, string>, body: Buffer) => void,
  failedBeforeHead: () => number,
): Promise<number> {
  const stream = new SocketResponseStream(res, requestId);
  try {
    await handler(event, stream);
  } catch {
    // A function error before the head is API Gateway's 5xx; after it, the connection is cut (as in Lambda).
    if (!res.headersSent) return failedBeforeHead();
    res.destroy();
  }
  if (!stream.writableEnded && !stream.destroyed) stream.end();
  onDone(stream.statusCode, stream.headers, stream.capturedBody());
  return stream.statusCode;
}
