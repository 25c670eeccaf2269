import { describe, expect, it } from 'vitest';
import { chatQueryExtender, parseQueries } from '#shared/kb/search/query-extension';

describe('chatQueryExtender', () => {
  it('asks the chat model with the question and background, and keeps the queries of its JSON array', async () => {
    const calls: { model: string; messages: readonly { role: string; content: string }[] }[] = [];
    const extender = chatQueryExtender(async (model, messages) => {
      calls.push({ model, messages });
      return '```json\n["How do I change my password?", "重置密码"]\n```';
    });

    const queries = await extender.extend('gpt-4o-mini', 'reset password', 'an account settings FAQ');

    expect(queries).toEqual(['How do I change my password?', '重置密码']);
    expect(calls[0]?.model).toBe('gpt-4o-mini');
    expect(calls[0]?.messages.at(-1)?.content).toBe('Background: an account settings FAQ\nQuestion: reset password');
  });

  it('adds nothing when the answer holds no array of strings', () => {
    expect(parseQueries('I cannot help with that.')).toEqual([]);
    expect(parseQueries('[1, 2, {"q": "x"}]')).toEqual([]);
    expect(parseQueries('[not json]')).toEqual([]);
    expect(parseQueries('["a", "b", "c", "d", "e", "f", "g"]')).toHaveLength(5);
  });
});
