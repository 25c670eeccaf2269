/*
 * Server-sent events, read incrementally (the WHATWG rules the providers follow): events end at a blank line, `data:`
 * lines join with "\n", `event:` names the event, comments (`:`) are dropped. Memory holds one event at a time, never
 * the stream.
 */

export interface SseEvent {
  readonly event?: string;
  readonly data: string;
}

/** The events of a byte stream, each as soon as its blank line arrives. */
export async function* parseSse(body: AsyncIterable<Uint8Array | string>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  let event: string | undefined;
  let data: string[] = [];
  let sawField = false;
  const flushLine = function* (line: string): Generator<SseEvent> {
    if (line === '') {
      if (sawField && data.length > 0)
        yield event === undefined ? { data: data.join('\n') } : { event, data: data.join('\n') };
      event = undefined;
      data = [];
      sawField = false;
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    sawField = true;
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value;
  };
  for await (const chunk of body) {
    buffer += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    let start = 0;
    for (let i = 0; i < buffer.length; i++) {
      const c = buffer.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      // A lone \r at the end of a chunk may be the first half of \r\n: wait for the next chunk.
      if (c === 13 && i + 1 === buffer.length) break;
      const line = buffer.slice(start, i);
      if (c === 13 && buffer.charCodeAt(i + 1) === 10) i++;
      start = i + 1;
      yield* flushLine(line);
    }
    buffer = buffer.slice(start);
  }
  buffer += decoder.decode();
  if (buffer !== '') yield* flushLine(buffer);
  yield* flushLine('');
}

/** One event as OpenAI writes it: `data: <json>` and a blank line. */
export function sseData(data: string): string {
  return `data: ${data}\n\n`;
}
