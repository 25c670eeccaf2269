import { describe, expect, it } from 'vitest';
import { parseSse, type SseEvent } from '#shared/relay/sse';

async function eventsOf(chunks: readonly string[]): Promise<SseEvent[]> {
  async function* source() {
    for (const chunk of chunks) yield new TextEncoder().encode(chunk);
  }
  const out: SseEvent[] = [];
  for await (const event of parseSse(source())) out.push(event);
  return out;
}

describe('the relay SSE reader', () => {
  it('reads events split anywhere across chunks, with LF, CRLF and CR line ends', async () => {
    // act
    const events = await eventsOf(['data: {"a":', '1}\r', '\n\r\nevent: ping\rdata: x\r\r', 'data: [DO', 'NE]\n\n']);
    // assert
    expect(events).toEqual([{ data: '{"a":1}' }, { event: 'ping', data: 'x' }, { data: '[DONE]' }]);
  });

  it('joins multi-line data, drops comments and events without data', async () => {
    // act
    const events = await eventsOf([': keep-alive\n\n', 'event: message_stop\n\n', 'data: one\ndata: two\n\n']);
    // assert
    expect(events).toEqual([{ data: 'one\ntwo' }]);
  });

  it('keeps a last event that the stream ends without a blank line', async () => {
    // act
    const events = await eventsOf(['data: tail']);
    // assert
    expect(events).toEqual([{ data: 'tail' }]);
  });

  it('decodes a multi-byte character split between chunks', async () => {
    // prepare
    const bytes = new TextEncoder().encode('data: 知识\n\n');
    async function* source() {
      yield bytes.subarray(0, 8);
      yield bytes.subarray(8);
    }
    // act
    const out: SseEvent[] = [];
    for await (const event of parseSse(source())) out.push(event);
    // assert
    expect(out).toEqual([{ data: '知识' }]);
  });
});
