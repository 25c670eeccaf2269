import type { ChatModel } from './relay-models.ts';

/*
 * `trainingType: "qa"` (docs/knowledge-base-api.md, "Training"): the dataset's agent model writes question–answer pairs
 * from each chunk. The prompt is our own; a `qaPrompt` of the collection replaces its instructions, never its output
 * format, which the parser below reads.
 */

const DEFAULT_INSTRUCTIONS =
  'Read the text below and write the questions a reader would ask about it, each with a complete answer taken ' +
  'from the text. Use the language of the text. Write at most 20 pairs; leave out anything the text does not say.';

const FORMAT =
  'Answer in exactly this format, one pair after another and nothing else:\nQ1: <question>\nA1: <answer>\nQ2: <question>\nA2: <answer>';

/** The pairs the model writes for one chunk; none when it writes none in the format. */
export async function qaPairs(
  chat: ChatModel,
  model: string,
  chunk: string,
  instructions?: string,
): Promise<{ q: string; a: string }[]> {
  const answer = await chat(model, [
    { role: 'system', content: `${instructions?.trim() || DEFAULT_INSTRUCTIONS}\n\n${FORMAT}` },
    { role: 'user', content: chunk },
  ]);
  return parseQaPairs(answer);
}

/** Reads `Q<n>: … A<n>: …` pairs (multi-line answers kept). */
export function parseQaPairs(text: string): { q: string; a: string }[] {
  const pairs: { q: string; a: string }[] = [];
  const pattern = /Q\d+\s*[:：]([\s\S]*?)\n\s*A\d+\s*[:：]([\s\S]*?)(?=\n\s*Q\d+\s*[:：]|$)/g;
  for (const match of text.matchAll(pattern)) {
    const q = (match[1] ?? '').trim();
    const a = (match[2] ?? '').trim();
    if (q !== '' && a !== '') pairs.push({ q, a });
  }
  return pairs;
}
