import type { Message } from '@smithy/core/event-streams';
import { fromUtf8, toUtf8 } from '@smithy/core/serde';
import type { SseEvent } from '../sse.ts';

/*
 * The `application/vnd.amazon.eventstream` framing ConverseStream answers in (AWS's "Event stream encoding": each
 * message is a 12-byte prelude — total length, headers length, prelude CRC32 — then headers, payload and a message
 * CRC32). Messages are cut from the byte stream here, as they arrive, and decoded (both CRCs checked) by
 * @smithy/core's EventStreamCodec, the SDK's own. Each becomes one SseEvent for the adapter's stream converter:
 * `event` = the `:event-type` header (messageStart, contentBlockDelta, …), or the `:exception-type` of an exception
 * message, or `error` for an error message; `data` = the payload's text. The codec is loaded with the first stream.
 */

/** The largest message accepted (AWS caps an event stream message at 16 MB). */
export const MAX_EVENT_MESSAGE_BYTES = 16 * 1024 * 1024;

const utf8 = new TextDecoder();

const header = (message: Message, name: string): string | undefined => {
  const value = message.headers[name];
  return value && value.type === 'string' ? value.value : undefined;
};

/** One decoded message as the event the converter reads. */
export function messageEvent(message: Message): SseEvent {
  const data = utf8.decode(message.body);
  const kind = header(message, ':message-type') ?? 'event';
  if (kind === 'exception') return { event: header(message, ':exception-type') ?? 'unknownException', data };
  if (kind === 'error') {
    return { event: 'error', data: JSON.stringify({ message: header(message, ':error-message') ?? 'stream error' }) };
  }
  return { event: header(message, ':event-type') ?? 'unknown', data };
}

/** The events of an event-stream body, each as soon as its last byte arrives; a bad CRC or length throws. */
export async function* decodeEventStream(body: AsyncIterable<Uint8Array | string>): AsyncGenerator<SseEvent> {
  const { EventStreamCodec } = await import('@smithy/core/event-streams');
  const codec = new EventStreamCodec(toUtf8, fromUtf8);
  let buffer: Buffer = Buffer.alloc(0);
  for await (const chunk of body) {
    buffer = buffer.length === 0 ? Buffer.from(chunk) : Buffer.concat([buffer, Buffer.from(chunk)]);
    while (buffer.length >= 4) {
      const total = buffer.readUInt32BE(0);
      if (total < 16 || total > MAX_EVENT_MESSAGE_BYTES) throw new Error(`event stream message of ${total} bytes`);
      if (buffer.length < total) break;
      const message = codec.decode(buffer.subarray(0, total));
      buffer = buffer.subarray(total);
      yield messageEvent(message);
    }
  }
  if (buffer.length > 0) throw new Error('event stream ended inside a message');
}
