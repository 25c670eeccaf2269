import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { withResponseHead } from '#shared/lambda-streaming';
import type { RelayReply } from './relay-http.ts';

/**
 * Writes a reply to the function's response stream: the head, then each chunk as the core yields it (never
 * collected; a slow client holds the next read through back-pressure, so memory stays flat whatever the size).
 * Returns whether the client went away before the end; then `onClientGone` runs at once (the handler aborts the
 * upstream request with it) and the body's iterator is closed without waiting for it.
 */
export async function writeReply(
  responseStream: Writable,
  reply: RelayReply,
  onClientGone: () => void,
): Promise<{ clientGone: boolean }> {
  const out = withResponseHead(responseStream, {
    statusCode: reply.status,
    // Intermediaries (nginx in front of `npm start`, a corporate proxy) must pass a stream on as it comes.
    headers: { ...reply.headers, 'x-accel-buffering': 'no' },
  });
  let clientGone = false;
  const gone = new Promise<void>((resolve) => {
    const onClose = () => {
      if (!out.writableFinished) {
        clientGone = true;
        onClientGone();
      }
      resolve();
    };
    out.once('close', onClose);
    out.once('error', onClose);
  });
  const iterator = reply.body[Symbol.asyncIterator]();
  try {
    for (;;) {
      const next = await Promise.race([iterator.next(), gone.then(() => undefined)]);
      if (next === undefined || clientGone) break;
      if (next.done) break;
      if (!out.write(next.value)) await Promise.race([once(out, 'drain'), gone]);
      if (clientGone) break;
    }
  } finally {
    // A generator suspended in an await finishes that await first: never wait for it once the client is gone.
    if (clientGone) iterator.return?.().catch(() => {});
  }
  if (!clientGone && !out.writableEnded) {
    out.end();
    await Promise.race([once(out, 'finish'), gone]);
  }
  return { clientGone };
}
