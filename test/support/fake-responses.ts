import { once } from 'node:events';
import type { ServerResponse } from 'node:http';

/*
 * OpenAI's Responses API as the fake OpenAI and Azure upstreams answer it (test/support/fake-upstreams.ts), written
 * from OpenAI's API reference and the types of `openai` 6.49.0 (`src/resources/responses/responses.ts`: Response,
 * ResponseUsage, ResponseStreamEvent): a non-stream Response, or the `response.*` events with `event:` names, their
 * `sequence_number`s, and the usage in `response.completed`.
 */

export const RESPONSES_USAGE = {
  input_tokens: 13,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: 5,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: 18,
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function responseObject(model: string, status: 'in_progress' | 'completed', text: string | undefined) {
  return {
    id: 'resp_fake',
    object: 'response',
    created_at: 1_700_000_000,
    status,
    error: null,
    incomplete_details: null,
    instructions: null,
    model,
    output:
      text === undefined
        ? []
        : [
            {
              type: 'message',
              id: 'msg_fake',
              status: 'completed',
              role: 'assistant',
              content: [{ type: 'output_text', text, annotations: [] }],
            },
          ],
    parallel_tool_calls: true,
    temperature: 1,
    tool_choice: 'auto',
    tools: [],
    top_p: 1,
    metadata: {},
    usage: status === 'completed' ? RESPONSES_USAGE : null,
  };
}

/** Answers `POST …/responses` (the key was checked by the caller). */
export async function serveResponses(
  res: ServerResponse,
  body: Record<string, unknown>,
  model: string,
  reply: string,
  eventGapMs: number | undefined,
): Promise<void> {
  if (body.stream !== true) {
    const text = JSON.stringify(responseObject(model, 'completed', reply));
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  let sequence = 0;
  const emit = async (type: string, fields: Record<string, unknown>) => {
    const data = JSON.stringify({ type, sequence_number: sequence++, ...fields });
    if (!res.write(`event: ${type}\ndata: ${data}\n\n`)) await once(res, 'drain');
  };
  const item = { item_id: 'msg_fake', output_index: 0 };
  await emit('response.created', { response: responseObject(model, 'in_progress', undefined) });
  await emit('response.in_progress', { response: responseObject(model, 'in_progress', undefined) });
  await emit('response.output_item.added', {
    output_index: 0,
    item: { type: 'message', id: 'msg_fake', status: 'in_progress', role: 'assistant', content: [] },
  });
  await emit('response.content_part.added', {
    ...item,
    content_index: 0,
    part: { type: 'output_text', text: '', annotations: [] },
  });
  for (const piece of reply.split(/(?= )/)) {
    if (eventGapMs) await sleep(eventGapMs);
    await emit('response.output_text.delta', { ...item, content_index: 0, delta: piece, logprobs: [] });
  }
  await emit('response.output_text.done', { ...item, content_index: 0, text: reply, logprobs: [] });
  await emit('response.content_part.done', {
    ...item,
    content_index: 0,
    part: { type: 'output_text', text: reply, annotations: [] },
  });
  const done = responseObject(model, 'completed', reply);
  await emit('response.output_item.done', { output_index: 0, item: done.output[0] });
  await emit('response.completed', { response: done });
  res.end();
}
