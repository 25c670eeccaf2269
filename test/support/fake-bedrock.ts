import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { crc32 } from 'node:zlib';
import type { Fault, RecordedRequest } from './fake-upstreams.ts';
import { type VerifyCredentials, verifySigV4 } from './sigv4-verify.ts';

/*
 * A fake Bedrock Runtime on 127.0.0.1, written from the Amazon Bedrock API Reference (Converse, ConverseStream,
 * CountTokens, the error shapes: JSON `{"message"}` with `x-amzn-ErrorType`) and AWS's event stream encoding (12-byte
 * prelude: total length, headers length, prelude CRC32; string headers `:event-type`, `:content-type`,
 * `:message-type`; payload; message CRC32). Every request's SigV4 signature is verified with the same secret
 * (sigv4-verify.ts); a bad one is 403 `InvalidSignatureException` whose message echoes the canonical request, as AWS
 * does, so tests can check none of it reaches a caller. Faults as the other fakes take them.
 */

export interface FakeBedrockOptions {
  readonly credentials: VerifyCredentials;
  readonly region: string;
  readonly reply?: string;
  readonly toolCall?: { readonly name: string; readonly arguments: Record<string, unknown> };
  /** Input tokens CountTokens answers (default 42). */
  readonly countTokens?: number;
}

export interface FakeBedrock {
  readonly url: string;
  readonly requests: RecordedRequest[];
  /** The model id of each request, decoded from its path. */
  readonly modelIds: string[];
  fault(fault: Fault | { readonly kind: 'bad-signature-echo' }, times?: number): void;
  close(): Promise<void>;
}

export const FAKE_BEDROCK_USAGE = { inputTokens: 11, outputTokens: 7, totalTokens: 18 };

/** One event stream message with string headers, framed and checksummed as AWS's encoding specifies. */
export function eventMessage(headers: Record<string, string>, payload: string | Buffer): Buffer {
  const headerBytes = Buffer.concat(
    Object.entries(headers).map(([name, value]) => {
      const n = Buffer.from(name);
      const v = Buffer.from(value);
      const head = Buffer.alloc(1 + n.length + 1 + 2);
      head.writeUInt8(n.length, 0);
      n.copy(head, 1);
      head.writeUInt8(7, 1 + n.length);
      head.writeUInt16BE(v.length, 2 + n.length);
      return Buffer.concat([head, v]);
    }),
  );
  const body = Buffer.from(payload);
  const total = 12 + headerBytes.length + body.length + 4;
  const prelude = Buffer.alloc(12);
  prelude.writeUInt32BE(total, 0);
  prelude.writeUInt32BE(headerBytes.length, 4);
  prelude.writeUInt32BE(crc32(prelude.subarray(0, 8)), 8);
  const message = Buffer.concat([prelude, headerBytes, body]);
  const trailer = Buffer.alloc(4);
  trailer.writeUInt32BE(crc32(message), 0);
  return Buffer.concat([message, trailer]);
}

const streamEvent = (type: string, payload: Record<string, unknown>) =>
  eventMessage(
    { ':event-type': type, ':content-type': 'application/json', ':message-type': 'event' },
    JSON.stringify({ ...payload, p: 'abcdefghij' }),
  );

const exceptionEvent = (type: string, message: string) =>
  eventMessage(
    { ':exception-type': type, ':content-type': 'application/json', ':message-type': 'exception' },
    JSON.stringify({ message }),
  );

function awsError(
  res: ServerResponse,
  status: number,
  type: string,
  message: string,
  extra: Record<string, string> = {},
) {
  const text = JSON.stringify({ message });
  res.writeHead(status, {
    'content-type': 'application/json',
    'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
    ...extra,
  });
  res.end(text);
}

async function write(res: ServerResponse, bytes: Buffer): Promise<void> {
  if (!res.write(bytes)) await once(res, 'drain');
}

export async function startFakeBedrock(options: FakeBedrockOptions): Promise<FakeBedrock> {
  const requests: RecordedRequest[] = [];
  const modelIds: string[] = [];
  const queue: (Fault | { kind: 'bad-signature-echo' })[] = [];
  const sockets = new Set<Socket>();
  const reply = options.reply ?? 'Hello from Bedrock';

  async function serve(req: IncomingMessage, res: ServerResponse, raw: Buffer): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const body = (() => {
      try {
        return JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
      } catch {
        return undefined;
      }
    })();
    requests.push({
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body,
    });
    const fault = queue.shift();
    if (fault?.kind === 'reset') return void req.socket.destroy();
    const verified = verifySigV4(
      { method: req.method ?? 'GET', rawPath: req.url ?? '/', headers: req.headers, body: raw },
      { credentials: options.credentials, region: options.region, service: 'bedrock' },
    );
    if (!verified.ok) {
      const echo = verified.canonical
        ? `\n\nThe Canonical String for this request should have been\n'${verified.canonical}'`
        : '';
      return awsError(res, 403, verified.code, verified.message + echo);
    }
    if (fault?.kind === 'bad-signature-echo') {
      // What AWS answers a wrong signature with, canonical request (security token included) and all.
      const headers = Object.entries(req.headers)
        .map(([k, v]) => `${k}:${String(v)}`)
        .join('\n');
      return awsError(
        res,
        403,
        'InvalidSignatureException',
        `The request signature we calculated does not match the signature you provided.\n\nThe Canonical String for this request should have been\n'${headers}'`,
      );
    }
    if (fault?.kind === 'rate-limited')
      return awsError(res, 429, 'ThrottlingException', 'Too many requests, please wait before trying again.');
    if (fault?.kind === 'server-error')
      return awsError(res, fault.status ?? 500, 'InternalServerException', 'The server encountered an internal error.');
    if (fault?.kind === 'invalid-key')
      return awsError(
        res,
        403,
        'UnrecognizedClientException',
        'The security token included in the request is invalid.',
      );
    if (fault?.kind === 'status') return awsError(res, fault.status, 'ValidationException', 'fault on demand');
    if (fault?.kind === 'wrong-content-type') {
      res.writeHead(200, { 'content-type': 'text/html' });
      return void res.end('<html></html>');
    }
    const route = /^\/model\/([^/]+)\/(converse|converse-stream|count-tokens)$/.exec(url.pathname);
    if (req.method !== 'POST' || !route) return awsError(res, 404, 'UnknownOperationException', 'Unknown operation');
    const modelId = decodeURIComponent(route[1] as string);
    modelIds.push(modelId);
    if (route[2] === 'count-tokens') {
      return void res.end(JSON.stringify({ inputTokens: options.countTokens ?? 42 }));
    }
    const messages = body?.messages;
    if (!Array.isArray(messages) || messages.length === 0) {
      return awsError(res, 400, 'ValidationException', 'The messages field is required.');
    }
    if (route[2] === 'converse') {
      const content = options.toolCall
        ? [{ toolUse: { toolUseId: 'tooluse_fake', name: options.toolCall.name, input: options.toolCall.arguments } }]
        : [{ text: reply }];
      res.writeHead(200, { 'content-type': 'application/json', 'x-amzn-requestid': 'fake-request' });
      return void res.end(
        JSON.stringify({
          output: { message: { role: 'assistant', content } },
          stopReason: options.toolCall ? 'tool_use' : 'end_turn',
          usage: FAKE_BEDROCK_USAGE,
          metrics: { latencyMs: 3 },
        }),
      );
    }
    res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-requestid': 'fake-request' });
    const frames: Buffer[] = [streamEvent('messageStart', { role: 'assistant' })];
    reply.split(/(?= )/).forEach((piece) => {
      frames.push(streamEvent('contentBlockDelta', { contentBlockIndex: 0, delta: { text: piece } }));
    });
    frames.push(streamEvent('contentBlockStop', { contentBlockIndex: 0 }));
    if (options.toolCall) {
      const json = JSON.stringify(options.toolCall.arguments);
      frames.push(
        streamEvent('contentBlockStart', {
          contentBlockIndex: 1,
          start: { toolUse: { toolUseId: 'tooluse_fake', name: options.toolCall.name } },
        }),
        streamEvent('contentBlockDelta', { contentBlockIndex: 1, delta: { toolUse: { input: json } } }),
        streamEvent('contentBlockStop', { contentBlockIndex: 1 }),
      );
    }
    frames.push(
      streamEvent('messageStop', { stopReason: options.toolCall ? 'tool_use' : 'end_turn' }),
      streamEvent('metadata', { usage: FAKE_BEDROCK_USAGE, metrics: { latencyMs: 3 } }),
    );
    for (const [i, frame] of frames.entries()) {
      if (fault?.kind === 'drop-mid-stream' && i === fault.afterEvents) {
        await new Promise<void>((resolve) => res.write('', () => resolve()));
        return void res.socket?.destroy();
      }
      if (fault?.kind === 'stream-error-event' && i === 2) {
        return void res.end(exceptionEvent('modelStreamErrorException', 'The model stream failed.'));
      }
      // Frames cut in two writes: the relay must reassemble messages across chunks.
      const half = Math.floor(frame.length / 2);
      await write(res, frame.subarray(0, half));
      await write(res, frame.subarray(half));
    }
    res.end();
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      serve(req, res, Buffer.concat(chunks)).catch(() => res.destroy());
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    modelIds,
    fault(fault, times = 1) {
      for (let i = 0; i < times; i++) queue.push(fault);
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}
