import { request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { RelayReply } from '#functions/relay/relay-http';
import { writeReply } from '#functions/relay/stream-reply';
import { type LocalGateway, startGateway } from '#infra/local/gateway';
import { type StreamingHandler, streamifyResponse } from '#shared/lambda-streaming';
import { gatewayOnlyBackend } from '#test/support/gateway-backend';

// The local gateway streaming a function written with shared/lambda-streaming.ts, as Lambda response streaming does
// behind an API Gateway method in streaming transfer mode. `GET /openapi.json` is a public route: no authorizer.
let current: StreamingHandler = async () => {};
const backend = gatewayOnlyBackend({
  authorizer: async () => {
    throw new Error('Unauthorized');
  },
  handlerFor: () => streamifyResponse((event, stream, context) => current(event, stream, context)),
});

let gateway: LocalGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
});

/** A reply whose body yields `chunks`, waiting `gapMs` before each; `events` records what happened when. */
function slowReply(chunks: string[], gapMs: number, events: string[]): RelayReply {
  return {
    status: 200,
    headers: { 'content-type': 'text/event-stream', 'x-request-id': 'r1' },
    body: (async function* () {
      try {
        for (const chunk of chunks) {
          await sleep(gapMs);
          events.push(`yield ${chunk.trim()}`);
          yield Buffer.from(chunk);
        }
      } finally {
        events.push('body closed');
      }
    })(),
  };
}

describe('streaming through the local server', () => {
  it('sends each chunk to the client as the function writes it, head first, with X-Accel-Buffering: no', async () => {
    const events: string[] = [];
    current = async (_event, stream) => {
      await writeReply(stream, slowReply(['data: 1\n\n', 'data: 2\n\n', 'data: [DONE]\n\n'], 150, events), () => {});
      events.push('handler returned');
    };
    gateway = await startGateway(backend, { port: 0 });
    const started = performance.now();
    const response = await fetch(`${gateway.url}/openapi.json`);
    const headAt = performance.now() - started;
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    const firstAt = performance.now() - started;
    events.push(`client got ${new TextDecoder().decode(first.value).trim()}`);
    let rest = '';
    for (;;) {
      const next = await reader.read();
      if (next.done) break;
      rest += new TextDecoder().decode(next.value);
    }

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('x-accel-buffering')).toBe('no');
    expect(response.headers.get('x-request-id')).toBe('r1');
    // The first chunk arrived before the function wrote the last one (450 ms in all): nothing waited for the end.
    expect(events.indexOf('client got data: 1')).toBeLessThan(events.indexOf('yield data: [DONE]'));
    expect(firstAt).toBeLessThan(headAt + 400);
    expect(rest).toBe('data: 2\n\ndata: [DONE]\n\n');
  });

  it('tells the function when the client goes away mid-stream, and closes the body without waiting for it', async () => {
    const events: string[] = [];
    let gone!: () => void;
    const wentAway = new Promise<void>((resolve) => {
      gone = resolve;
    });
    const finished = new Promise<{ clientGone: boolean }>((resolve) => {
      current = async (_event, stream) => {
        const chunks = Array.from({ length: 50 }, (_, i) => `data: ${i}\n\n`);
        resolve(
          await writeReply(stream, slowReply(chunks, 40, events), () => {
            events.push('client gone');
            gone();
          }),
        );
      };
    });
    gateway = await startGateway(backend, { port: 0 });
    const url = new URL(`${gateway.url}/openapi.json`);
    await new Promise<void>((resolve) => {
      const req = request(url, (res) => {
        res.once('data', () => {
          req.destroy();
          resolve();
        });
      });
      req.end();
    });

    await wentAway;
    const outcome = await finished;
    expect(outcome.clientGone).toBe(true);
    expect(events.filter((e) => e.startsWith('yield')).length).toBeLessThan(50);
  });

  it("answers the API's 5xx gateway response when the function fails before its head", async () => {
    current = async () => {
      throw new Error('boom: a secret-looking message');
    };
    gateway = await startGateway(backend, { port: 0 });
    const response = await fetch(`${gateway.url}/openapi.json`);
    const body = await response.text();
    expect(response.status).toBe(500);
    expect(body).not.toContain('boom');
  });
});
