import { randomUUID } from 'node:crypto';
import type { RelayCaller, RelayEndpoint, RelayResponse } from '../relay/contract.ts';
import type { Relay } from '../relay/relay.ts';
import { type Embedder, EmbeddingUnavailableError } from './contract.ts';
import type { Reranker } from './search/types.ts';

/*
 * The knowledge base reaches models through the relay's routing core, in process (docs/knowledge-base-api.md,
 * "Training"): the same channels, tiers, failover and health as `/v1`, in the group KB_RELAY_GROUP. Usage records name
 * the key id `kb-training`. Errors say what an operator can act on, never a key or an upstream's body.
 */

/** The usage records' key id of the knowledge base's own model calls. */
export const KB_RELAY_KEY_ID = 'kb-training';

/** A model call that cannot be made, or failed; `retryable` says whether trying later can help. */
export class ModelCallError extends EmbeddingUnavailableError {}

const decoder = new TextDecoder();

async function readAll(response: RelayResponse): Promise<string> {
  let text = '';
  for await (const chunk of response.body) text += decoder.decode(chunk, { stream: true });
  return text + decoder.decode();
}

/** Sends one request through the routing core and answers its JSON, or throws ModelCallError. */
async function call(
  relay: Pick<Relay, 'handle'>,
  group: string,
  endpoint: RelayEndpoint,
  body: Record<string, unknown>,
  signal: AbortSignal | undefined,
): Promise<Record<string, unknown>> {
  const caller: RelayCaller = { keyId: KB_RELAY_KEY_ID, groups: [group] };
  const response = await relay.handle({
    requestId: randomUUID(),
    endpoint,
    body,
    caller,
    signal: signal ?? new AbortController().signal,
  });
  const model = String(body.model);
  // A provider's answer is handed over parsed (no second read and parse of what the relay already parsed); the relay's
  // own error envelopes are read from the body.
  if (response.status === 200 && response.takeJson !== undefined) return { ...response.takeJson() };
  const text = await readAll(response);
  let parsed: Record<string, unknown> | undefined;
  try {
    parsed = JSON.parse(text) as Record<string, unknown>;
  } catch {
    parsed = undefined;
  }
  if (response.status === 200 && parsed !== undefined) return parsed;
  const code = (parsed?.error as { code?: unknown } | undefined)?.code;
  if (response.status === 503 && typeof code === 'string' && code.startsWith('no_channel')) {
    const why = code.replace(/^no_channel_?/, '').replaceAll('_', ' ');
    throw new ModelCallError(
      `no channel serves ${model} for group ${group}${why && why !== 'none' ? ` (${why})` : ''}`,
      false,
    );
  }
  const retryable = response.status === 429 || response.status >= 500 || response.status === 200;
  throw new ModelCallError(`the ${endpoint} call for ${model} failed (HTTP ${response.status})`, retryable);
}

/** An Embedder over the routing core: one embeddings request per call, vectors in input order. */
export function relayEmbedder(relay: Pick<Relay, 'handle'>, group: string): Embedder {
  return {
    async embed(model, texts, signal) {
      if (texts.length === 0) return [];
      const out = await call(relay, group, 'embeddings', { model, input: [...texts] }, signal);
      const data = Array.isArray(out.data) ? (out.data as { index?: unknown; embedding?: unknown }[]) : [];
      const vectors: number[][] = new Array(texts.length);
      for (const [i, item] of data.entries()) {
        const index = typeof item.index === 'number' ? item.index : i;
        if (Array.isArray(item.embedding) && index >= 0 && index < texts.length) {
          vectors[index] = item.embedding as number[];
        }
      }
      for (let i = 0; i < texts.length; i++) {
        if (!Array.isArray(vectors[i])) {
          throw new ModelCallError(`the embeddings answer for ${model} lacks vector ${i}`, true);
        }
      }
      return vectors;
    },
  };
}

/** Asks a chat model once (no stream) and answers its text. */
export type ChatModel = (
  model: string,
  messages: readonly { role: 'system' | 'user'; content: string }[],
  signal?: AbortSignal,
) => Promise<string>;

/** A ChatModel over the routing core. */
export function relayChat(relay: Pick<Relay, 'handle'>, group: string): ChatModel {
  return async (model, messages, signal) => {
    const out = await call(relay, group, 'chat', { model, messages, temperature: 0.2 }, signal);
    const choice = Array.isArray(out.choices) ? (out.choices[0] as { message?: { content?: unknown } }) : undefined;
    const content = choice?.message?.content;
    if (typeof content !== 'string') throw new ModelCallError(`the chat answer of ${model} has no text`, true);
    return content;
  };
}

/**
 * A Reranker over the routing core: one rerank request in Jina's and Cohere's body (docs/relay.md, "Rerank") with every
 * document, as FastGPT's reRankRecall sends it (`top_n` all of them, no documents echoed back); the answer's results by
 * document id, best first. A document with no text is not sent, as FastGPT leaves it out.
 */
export function relayReranker(relay: Pick<Relay, 'handle'>, group: string): Reranker {
  return {
    async rerank(model, query, documents, signal) {
      const sent = documents.filter((d) => d.text.trim() !== '');
      if (sent.length === 0) return [];
      const body = {
        model,
        query,
        documents: sent.map((d) => d.text.trim()),
        top_n: sent.length,
        return_documents: false,
      };
      const out = await call(relay, group, 'rerank', body, signal);
      if (!Array.isArray(out.results)) throw new ModelCallError(`the rerank answer of ${model} has no results`, true);
      const seen = new Set<number>();
      const ranked: { id: string; score: number }[] = [];
      for (const result of out.results as { index?: unknown; relevance_score?: unknown }[]) {
        const index = result?.index;
        if (typeof index !== 'number' || !Number.isInteger(index) || seen.has(index)) continue;
        const document = sent[index];
        if (document === undefined) continue;
        seen.add(index);
        const score = result.relevance_score;
        ranked.push({ id: document.id, score: typeof score === 'number' && Number.isFinite(score) ? score : 0 });
      }
      // Upstreams answer best first; a stable sort keeps their order and mends one that does not.
      return ranked.sort((a, b) => b.score - a.score);
    },
  };
}
