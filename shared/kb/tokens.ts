import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';

/*
 * Token counts as FastGPT counts them (packages/service/common/string/tiktoken: `cl100k_base` through js-tiktoken, read
 * at v4.14): pushData's per-item limit and searchTest's token budget use this count, so a client's expectations of
 * what fits carry over. The encoder is built on first use, not at module load, so functions that never count pay
 * nothing.
 */
let encoder: Tiktoken | undefined;

/** Tokens of a text in `cl100k_base`. */
export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  encoder ??= new Tiktoken(cl100k);
  return encoder.encode(text).length;
}
