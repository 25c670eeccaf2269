import type { ChatModel } from '../relay-models.ts';
import type { QueryExtender } from './types.ts';

/*
 * searchTest's query extension (`datasetSearchUsingExtensionQuery`, docs/knowledge-base-search.md): a chat model asked
 * through the relay for other wordings of the question, searched beside it, as FastGPT's queryExtension does (read at
 * v4.12: it asks the model for a JSON array of retrieval questions, with the conversation background). The prompt is
 * our own. A model that answers anything but such an array adds nothing: the search runs with the question alone.
 */

/** At most this many extra questions are kept (the search takes five at most). */
const MAX_QUERIES = 5;

const SYSTEM = [
  'You rewrite a user question into search queries for a knowledge base.',
  'Answer with a JSON array of at most 3 short queries, in the language of the question, that ask the same thing in',
  'other words or make an implicit subject explicit. Answer with the JSON array only.',
].join(' ');

export function chatQueryExtender(chat: ChatModel): QueryExtender {
  return {
    async extend(model, query, background) {
      const context = background.trim() ? `Background: ${background.trim()}\n` : '';
      const answer = await chat(model, [
        { role: 'system', content: SYSTEM },
        { role: 'user', content: `${context}Question: ${query}` },
      ]);
      return parseQueries(answer);
    },
  };
}

/** The strings of the first JSON array in a model's answer (code fences and prose around it allowed). */
export function parseQueries(answer: string): string[] {
  const start = answer.indexOf('[');
  const end = answer.lastIndexOf(']');
  if (start < 0 || end <= start) return [];
  try {
    const parsed: unknown = JSON.parse(answer.slice(start, end + 1));
    if (!Array.isArray(parsed)) return [];
    return parsed.filter((q): q is string => typeof q === 'string' && q.trim().length > 0).slice(0, MAX_QUERIES);
  } catch {
    return [];
  }
}
