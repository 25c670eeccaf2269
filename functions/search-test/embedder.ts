import type { Embedder } from '#shared/kb/contract';
import type { Reranker } from '#shared/kb/search/types';

/*
 * The models the search calls, wired at cold start. The relay-backed embedder comes from the knowledge base's training
 * core (the same routing core and group, KB_RELAY_GROUP); until it is wired here, embedding recall answers
 * 424 embeddingUnavailable and full-text recall works (docs/knowledge-base-search.md, "No embedding channel").
 */

/** Builds the search's embedder, or undefined when none is configured. */
export type EmbedderFactory = () => Embedder | undefined;

let factory: EmbedderFactory = () => undefined;

/** Sets how the search function builds its embedder (the integration point of the relay-backed embedder). */
export function setSearchEmbedderFactory(next: EmbedderFactory): void {
  factory = next;
}

export function searchEmbedder(): Embedder | undefined {
  return factory();
}

/** The relay has no rerank endpoint yet: no reranker, so `usingReRank` is answered false as FastGPT does with no model. */
export function searchReranker(): Reranker | undefined {
  return undefined;
}
