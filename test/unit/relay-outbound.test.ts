import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { parseAllowList } from '#shared/allow-list';
import { createOutbound, readBounded } from '#shared/relay/outbound';

/*
 * The relay's outbound client against a real loopback server whose connections close as an upstream's do
 * (shared/relay/outbound.ts; docs/relay.md, "Outbound").
 */

interface Upstream {
  readonly url: string;
  /** Requests the server read, in order, with the connection (its ordinal) each came on. */
  readonly seen: { connection: number; nth: number }[];
  close(): Promise<void>;
}

/**
 * `closeOn(connection, nth)`: whether the server drops the connection without answering its nth request (1-based):
 * as an upstream whose idle keep-alive connection was closed, when the client wrote to it anyway.
 */
async function upstream(
  closeOn: (connection: number, nth: number) => boolean,
  keepAlive = 'timeout=5',
): Promise<Upstream> {
  const seen: { connection: number; nth: number }[] = [];
  const connections = new Map<Socket, { id: number; requests: number }>();
  const server: Server = createServer((req, res) => {
    const state = connections.get(req.socket) as { id: number; requests: number };
    state.requests += 1;
    seen.push({ connection: state.id, nth: state.requests });
    req.resume();
    req.on('end', () => {
      if (closeOn(state.id, state.requests)) {
        req.socket.destroy();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', 'keep-alive': keepAlive });
      res.end('{"ok":true}');
    });
  });
  server.on('connection', (socket) => connections.set(socket, { id: connections.size + 1, requests: 0 }));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/v1/embeddings`,
    seen,
    async close() {
      for (const socket of connections.keys()) socket.destroy();
      server.close();
    },
  };
}

const open: { close(): unknown }[] = [];
afterEach(async () => {
  for (const o of open.splice(0)) await o.close();
});

function client() {
  const outbound = createOutbound({ allowedHosts: parseAllowList(['127.0.0.1']) });
  open.push(outbound);
  return outbound;
}

const send = (outbound: ReturnType<typeof createOutbound>, url: string) =>
  outbound.send({
    url,
    headers: { 'content-type': 'application/json' },
    body: '{}',
    signal: new AbortController().signal,
  });

describe('outbound: connections the upstream closed', () => {
  it('sends a request again on a new connection when its reused keep-alive connection was closed', async () => {
    // Every connection's second request finds it closed: the first request's connection is kept alive and reused.
    const server = await upstream((_connection, nth) => nth === 2);
    open.push(server);
    const outbound = client();
    expect(await readBounded(await send(outbound, server.url))).toBe('{"ok":true}');
    const res = await send(outbound, server.url);
    expect(res.statusCode).toBe(200);
    expect(await readBounded(res)).toBe('{"ok":true}');
    // The first request, the second on the same (closed) connection, the same request again on a new one.
    expect(server.seen).toEqual([
      { connection: 1, nth: 1 },
      { connection: 1, nth: 2 },
      { connection: 2, nth: 1 },
    ]);
  });

  it('does not send again when a new connection fails: the error is the caller’s', async () => {
    const server = await upstream(() => true);
    open.push(server);
    await expect(send(client(), server.url)).rejects.toMatchObject({ code: 'ECONNRESET' });
    expect(server.seen).toEqual([{ connection: 1, nth: 1 }]);
  });

  it('gives up after three sends that each met a closed connection', async () => {
    // Connections 1-3 answer once, then close on their second request; the three are reused one after the other.
    const server = await upstream((connection, nth) => connection <= 3 && nth === 2);
    open.push(server);
    const outbound = client();
    // Three connections kept alive at once: three requests in flight together.
    const first = await Promise.all([1, 2, 3].map(() => send(outbound, server.url)));
    for (const res of first) await readBounded(res);
    await expect(send(outbound, server.url)).rejects.toMatchObject({ code: 'ECONNRESET' });
    expect(
      server.seen
        .filter((s) => s.nth === 2)
        .map((s) => s.connection)
        .sort(),
    ).toEqual([1, 2, 3]);
    expect(server.seen.some((s) => s.connection > 3)).toBe(false);
  });

  it('drops an idle connection a second before the upstream said it would close it (Keep-Alive: timeout=2)', async () => {
    const server = await upstream(() => false, 'timeout=2');
    open.push(server);
    const outbound = client();
    await readBounded(await send(outbound, server.url));
    await readBounded(await send(outbound, server.url));
    // Idle for longer than the hint less Node's second: the connection is gone, the next request opens another.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await readBounded(await send(outbound, server.url));
    expect(server.seen).toEqual([
      { connection: 1, nth: 1 },
      { connection: 1, nth: 2 },
      { connection: 2, nth: 1 },
    ]);
  });

  it('drops a connection idle for longer than idleTimeoutMs', async () => {
    const server = await upstream(() => false);
    open.push(server);
    const outbound = createOutbound({ allowedHosts: parseAllowList(['127.0.0.1']), idleTimeoutMs: 50 });
    open.push(outbound);
    await readBounded(await send(outbound, server.url));
    await new Promise((resolve) => setTimeout(resolve, 150));
    await readBounded(await send(outbound, server.url));
    expect(server.seen.map((s) => s.connection)).toEqual([1, 2]);
  });
});
